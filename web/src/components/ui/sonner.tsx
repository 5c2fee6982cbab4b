import { Toaster as Sonner, type ToasterProps } from "sonner";
import { useTheme } from "@/components/theme/theme-provider";

// Library defaults are kept (3 visible, 4000 ms, 356 px wide, 14 px gap, F8 hotkey).
function Toaster(props: ToasterProps) {
  const { resolved } = useTheme();
  return <Sonner theme={resolved} position="bottom-right" closeButton className="toaster group" {...props} />;
}

export { Toaster };
