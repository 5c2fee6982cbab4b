import { signIn } from "@/features/auth";
import { nameThisDevice } from "@/features/sessions/api/sessions";
import { deviceName } from "@/features/sessions/lib/device";

/**
 * Signs in, then names this device in the connected-devices list (the spec's record at
 * login). The device limit is the server's: a sign-in beyond it is refused with
 * 'maximum number of sessions'. Naming is a courtesy: the server names unnamed devices from
 * their user agent, so a failure there does not block the learner.
 */
export async function signInAndRecordDevice(email: string, password: string): Promise<void> {
  await signIn(email, password);
  await nameThisDevice(deviceName(navigator.userAgent)).catch(() => undefined);
}
