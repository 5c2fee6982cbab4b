import { Toaster as Sonner, type ToasterProps } from "sonner";
import { useTheme } from "@/components/theme/theme-provider";

/**
 * Toasts sit at the top centre, over the sticky 64 px header: they hide no action of the page
 * (row buttons, "Actualiser", the last lessons' buttons, dialog footers) at any scroll, and
 * dialogs keep below them on phones (components/ui/dialog.tsx, alert-dialog.tsx). The header
 * is covered for the few seconds a toast shows; its close button dismisses it at once.
 * Library defaults otherwise (3 visible, 4000 ms, Alt+T to reach them).
 */
function Toaster(props: ToasterProps) {
  const { resolved } = useTheme();
  return (
    <Sonner
      theme={resolved}
      position="top-center"
      offset={{ top: 8 }}
      mobileOffset={{ top: 4, left: 8, right: 8 }}
      closeButton
      // The library's own words are English ("Close toast", "Notifications alt+T").
      customAriaLabel="Notifications (Alt+T)"
      // Tighter than the library's 16 px: a toast with a two-line description stays near the header's height.
      toastOptions={{ closeButtonAriaLabel: "Fermer la notification", style: { paddingBlock: 10 } }}
      className="toaster group"
      {...props}
    />
  );
}

export { Toaster };
