import { textLimitError } from "@/lib/text-limits";
import { frenchError } from "@/lib/server-errors";

/**
 * The error's own message when it is French (the site's messages, a text over its bound) or a
 * server answer known in French, else the fixed text of the spec: never the server's English.
 */
export function errorText(error: unknown, fallback: string): string {
  const limit = textLimitError(error);
  if (limit) return limit.message;
  return frenchError(error, fallback);
}
