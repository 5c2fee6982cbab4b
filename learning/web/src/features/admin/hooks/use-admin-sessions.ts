import { useAllSessions } from "@/features/sessions";
import { ADMIN_STALE_TIME } from "@/features/admin/hooks/keys";
import { useFailureToast } from "@/features/admin/hooks/use-failure-toast";

/** The Sessions tab reads the devices again every 60 s while it is shown. */
export const ADMIN_SESSIONS_REFRESH_MS = 60_000;

/** Every connected device (admins only: `enabled`); a failed read says so in a toast. */
export function useAdminSessions(enabled: boolean) {
  const query = useAllSessions({ enabled, staleTime: ADMIN_STALE_TIME, refetchInterval: ADMIN_SESSIONS_REFRESH_MS });
  useFailureToast(query.error, "Impossible de charger les sessions.", true);
  return query;
}
