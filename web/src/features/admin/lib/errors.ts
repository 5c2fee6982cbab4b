import { textLimitError } from "@/lib/text-limits";

/** The server's message (a text over its bound: the French one), else the fixed text of the spec. */
export function errorText(error: unknown, fallback: string): string {
  const limit = textLimitError(error);
  if (limit) return limit.message;
  if (error instanceof Error && error.message) return error.message;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" && message ? message : fallback;
}
