import * as React from "react";
import { toast } from "sonner";

/**
 * Says `text` in an error toast once per failed read of a query (each failure, after its
 * retry, is a new error object).
 */
export function useErrorToast(error: Error | null, text: string, description?: string): void {
  React.useEffect(() => {
    if (error) toast.error(text, description ? { description } : undefined);
  }, [error, text, description]);
}
