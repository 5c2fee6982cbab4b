// The id of this browser's user_sessions row, kept across reloads.
const KEY = "device_session_id";

export function getDeviceSessionId(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function setDeviceSessionId(id: string): void {
  localStorage.setItem(KEY, id);
}

export function clearDeviceSessionId(): void {
  try {
    localStorage.removeItem(KEY);
  } catch {
    // storage unavailable: nothing to clear
  }
}
