import type { ReactNode } from "react";
import { Tooltip } from "radix-ui";
import { ThemeProvider } from "@/components/theme/theme-provider";
import { Toaster } from "@/components/ui/sonner";
import { AuthProvider } from "@/features/auth/hooks/auth-context";

export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <ThemeProvider>
      <Tooltip.Provider delayDuration={700}>
        <AuthProvider>
          {children}
          <Toaster />
        </AuthProvider>
      </Tooltip.Provider>
    </ThemeProvider>
  );
}
