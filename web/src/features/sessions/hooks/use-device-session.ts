import * as React from "react";
import { toast } from "sonner";
import { useAuth } from "@/features/auth";
import { heartbeat, sessionStatus } from "@/features/sessions/api/sessions";
import { sessionIdOf } from "@/features/sessions/lib/current-session";
import { endedSessionText } from "@/features/sessions/lib/end-reason";

export const HEARTBEAT_MS = 30_000;

/** The id of this browser's device: the auth session of its access token. */
export function useThisDeviceId(): string | null {
  const { session } = useAuth();
  return sessionIdOf(session?.access_token);
}

/**
 * Every 30 s: status check and heartbeat (last_active). When this device's session was ended
 * elsewhere (another device, an admin, expiry...), says so and signs out.
 */
export function useDeviceSession(): void {
  const { signOut } = useAuth();
  const deviceId = useThisDeviceId();

  React.useEffect(() => {
    if (!deviceId) return;
    let stopped = false;
    const tick = async () => {
      const status = await sessionStatus(deviceId);
      if (stopped || !status) return;
      if (!status.is_current) {
        stopped = true;
        toast("Session terminée", { description: endedSessionText(status.end_reason), duration: 10_000 });
        await signOut().catch(() => undefined);
        return;
      }
      await heartbeat(deviceId);
    };
    void tick();
    const timer = window.setInterval(() => void tick(), HEARTBEAT_MS);
    return () => {
      stopped = true;
      window.clearInterval(timer);
    };
  }, [deviceId, signOut]);
}
