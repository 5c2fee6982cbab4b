import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { listAllSessions, listMySessions, terminateSession, type DeviceSession } from "@/features/sessions/api/sessions";

/** Query keys of the connected-devices lists (public.user_sessions). */
export const sessionKeys = {
  lists: ["sessions"] as const,
  mine: (userId: string | null) => ["sessions", "mine", userId] as const,
  all: ["sessions", "all"] as const,
};

/** The signed-in user's connected devices, most recently active first. */
export function useMySessions(userId: string | null) {
  return useQuery({ queryKey: sessionKeys.mine(userId), queryFn: () => listMySessions(userId!), enabled: !!userId });
}

/** Every connected device (admins only: `enabled`), read again every `refetchInterval` ms if given. */
export function useAllSessions(options: { enabled: boolean; staleTime?: number; refetchInterval?: number }) {
  return useQuery({ queryKey: sessionKeys.all, queryFn: listAllSessions, ...options });
}

/**
 * Ends a device. The lists are read again before the mutation settles, except after ending
 * this device: its caller signs out, and a read with the ended session would be refused.
 */
export function useTerminateSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (session: Pick<DeviceSession, "id" | "is_this_device">) => terminateSession(session.id),
    onSuccess: (_data, session) => (session.is_this_device ? undefined : queryClient.invalidateQueries({ queryKey: sessionKeys.lists })),
  });
}
