/**
 * Where sign-in and sign-up send the user back to (`?next=`): a path of this site only. A
 * value that could leave it — another origin ("//host", "/\host", "https:..."), a relative
 * path, control characters — goes to "/" instead (no open redirect).
 */
export function safeNextPath(raw: string | null | undefined): string {
  if (!raw || raw.length > 2048) return "/";
  if (!raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) return "/";
  // Browsers drop tabs and newlines from URLs and read "\" as "/": "/\t/host" is "//host".
  if ([...raw].some((c) => c === "\\" || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return "/";
  return raw;
}

/** `route` (/connexion, /inscription) carrying `next` along, when there is somewhere to go back to. */
export function withNext(route: string, next: string): string {
  const target = safeNextPath(next);
  return target === "/" ? route : `${route}?next=${encodeURIComponent(target)}`;
}
