import { signIn, signOut } from "@/features/auth/api/auth";
import { recordDeviceSession } from "@/features/sessions/api/sessions";
import { deviceName } from "@/features/sessions/lib/device";
import { setDeviceSessionId } from "@/features/sessions/lib/storage";

/**
 * Signs in and records this device (user_sessions). If the device cannot be recorded
 * because the account has reached its device limit, the sign-in is undone.
 */
export async function signInAndRecordDevice(email: string, password: string): Promise<void> {
  const session = await signIn(email, password);
  try {
    // The public-IP lookup service is not reachable from here; the spec's fallback applies.
    const id = await recordDeviceSession(session.user.id, deviceName(navigator.userAgent), "Unknown");
    setDeviceSessionId(id);
  } catch (error) {
    const message = error instanceof Error ? error.message : String((error as { message?: string })?.message ?? "");
    if (/maximum number of sessions/i.test(message)) {
      await signOut().catch(() => undefined);
      throw new Error(message);
    }
    // Any other failure to record the device does not block the learner.
  }
}
