import * as React from "react";
import { toast } from "sonner";
import { errorText } from "@/features/admin/lib/errors";

/**
 * Toasts "Erreur" when a read fails (once per failure, after its retry). With `serverText` the
 * server's message is shown when it has one, else `fallback`.
 */
export function useFailureToast(error: Error | null, fallback: string, serverText = false): void {
  React.useEffect(() => {
    if (error) toast.error("Erreur", { description: serverText ? errorText(error, fallback) : fallback });
  }, [error, fallback, serverText]);
}
