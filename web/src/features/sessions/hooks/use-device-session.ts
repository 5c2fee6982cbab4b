import * as React from "react";
import { toast } from "sonner";
import { useAuth } from "@/features/auth/hooks/auth-context";
import { heartbeat, isSessionCurrent } from "@/features/sessions/api/sessions";
import { getDeviceSessionId } from "@/features/sessions/lib/storage";

export const HEARTBEAT_MS = 30_000;

/** Every 30 s: heartbeat (last_active) and status check; signs out when ended elsewhere. */
export function useDeviceSession(): void {
  const { user, signOut } = useAuth();
  const userId = user?.id ?? null;

  React.useEffect(() => {
    if (!userId) return;
    let stopped = false;
    const tick = async () => {
      const id = getDeviceSessionId();
      if (!id || stopped) return;
      const current = await isSessionCurrent(id);
      if (stopped) return;
      if (current === false) {
        stopped = true;
        toast("Session terminée", { description: "Votre session a été terminée par un administrateur." });
        await signOut().catch(() => undefined);
        return;
      }
      if (current) await heartbeat(id);
    };
    void tick();
    const timer = window.setInterval(() => void tick(), HEARTBEAT_MS);
    return () => {
      stopped = true;
      window.clearInterval(timer);
    };
  }, [userId, signOut]);
}
