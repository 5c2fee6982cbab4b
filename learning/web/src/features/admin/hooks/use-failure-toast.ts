import { useErrorToast } from "@/lib/use-error-toast";
import { errorText } from "@/features/admin/lib/errors";

/**
 * Toasts "Erreur" when a read fails. With `serverText` the server's message is shown when it
 * has one, else `fallback`.
 */
export function useFailureToast(error: Error | null, fallback: string, serverText = false): void {
  useErrorToast(error, "Erreur", error && serverText ? errorText(error, fallback) : fallback);
}
