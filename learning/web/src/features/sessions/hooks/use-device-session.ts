import * as React from "react";
import { useQuery } from "@tanstack/react-query";
import { toast } from "sonner";
import { useAuth } from "@/features/auth";
import { heartbeat, sessionStatus, type SessionStatus } from "@/features/sessions/api/sessions";
import { sessionIdOf } from "@/features/sessions/lib/current-session";
import { endedSessionText } from "@/features/sessions/lib/end-reason";

export const HEARTBEAT_MS = 30_000;

/** The id of this browser's device: the auth session of its access token. */
export function useThisDeviceId(): string | null {
  const { session } = useAuth();
  return sessionIdOf(session?.access_token);
}

/** One check: the session's status, and a heartbeat (last_active) while it is current. */
async function checkDevice(deviceId: string): Promise<SessionStatus | null> {
  const status = await sessionStatus(deviceId);
  if (status?.is_current) await heartbeat(deviceId);
  return status;
}

/**
 * On load and every 30 s (hidden tabs included): status check and heartbeat. When this
 * device's session was ended elsewhere (another device, an admin, expiry...), says so once
 * and signs out; the checks stop there.
 */
export function useDeviceSession(): void {
  const { signOut } = useAuth();
  const deviceId = useThisDeviceId();
  const { data: status } = useQuery({
    // Not under "sessions": ending another device must not run this device's check.
    queryKey: ["device-status", deviceId],
    queryFn: () => checkDevice(deviceId!),
    enabled: !!deviceId,
    staleTime: 0,
    retry: false,
    refetchInterval: (query) => (query.state.data?.is_current === false ? false : HEARTBEAT_MS),
    refetchIntervalInBackground: true,
  });
  const ended = !!deviceId && status?.is_current === false;
  const told = React.useRef<string | null>(null);

  React.useEffect(() => {
    if (!ended || !status || told.current === deviceId) return;
    told.current = deviceId;
    toast("Session terminée", { description: endedSessionText(status.end_reason), duration: 10_000 });
    void signOut().catch(() => undefined);
  }, [ended, status, deviceId, signOut]);
}
