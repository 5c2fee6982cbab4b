/** '{browser} on {OS}' from a user agent string, as recorded in user_sessions.device_name. */
export function deviceName(userAgent: string): string {
  return `${browserName(userAgent)} on ${osName(userAgent)}`;
}

export function browserName(ua: string): string {
  if (/Edg\//.test(ua)) return "Edge";
  if (/OPR\/|Opera/.test(ua)) return "Opera";
  if (/Firefox\/|FxiOS/.test(ua)) return "Firefox";
  if (/Chrome\/|CriOS|Chromium/.test(ua)) return "Chrome";
  if (/Safari\//.test(ua)) return "Safari";
  return "Unknown Browser";
}

export function osName(ua: string): string {
  if (/Windows/.test(ua)) return "Windows";
  if (/Android/.test(ua)) return "Android";
  if (/iPhone|iPad|iPod/.test(ua)) return "iOS";
  if (/Mac OS X|Macintosh/.test(ua)) return "macOS";
  if (/CrOS/.test(ua)) return "ChromeOS";
  if (/Linux/.test(ua)) return "Linux";
  return "Unknown OS";
}

const FRENCH_NAMES: Record<string, string> = { "Unknown Browser": "Navigateur inconnu", "Unknown OS": "système inconnu" };

/**
 * The French label of a stored device name: '{browser} on {OS}' (the app's and the server's
 * app_private.device_name(), kept as the spec stores it) reads '{browser} sur {OS}'; a name
 * the device gave itself otherwise is shown as it is.
 */
export function deviceLabel(stored: string | null | undefined): string {
  const name = (stored ?? "").trim();
  if (!name) return "Appareil inconnu";
  const parts = /^(.+) on (.+)$/.exec(name);
  if (!parts) return name;
  const [, browser, os] = parts;
  return `${FRENCH_NAMES[browser] ?? browser} sur ${FRENCH_NAMES[os] ?? os}`;
}
