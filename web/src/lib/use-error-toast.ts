import * as React from "react";
import { toast } from "sonner";

/** Says `text` in an error toast once per failed read of a query (errorUpdatedAt tells them apart). */
export function useErrorToast(query: { isError: boolean; errorUpdatedAt: number }, text: string, description?: string): void {
  const { isError, errorUpdatedAt } = query;
  React.useEffect(() => {
    if (isError) toast.error(text, description ? { description } : undefined);
  }, [isError, errorUpdatedAt, text, description]);
}
