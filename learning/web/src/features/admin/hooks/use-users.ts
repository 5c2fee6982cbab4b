import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { listProfiles, updateUser, usersWithAccess } from "@/features/admin/api/users";
import { ADMIN_STALE_TIME, adminKeys } from "@/features/admin/hooks/keys";
import { errorText } from "@/features/admin/lib/errors";
import type { ProfileUpdate } from "@/types/db";

/** Every profile, newest first, and who holds any access (the table's dot). */
export function useAdminUsers() {
  const profiles = useQuery({ queryKey: adminKeys.allProfiles, queryFn: listProfiles, staleTime: ADMIN_STALE_TIME });
  const holders = useQuery({ queryKey: adminKeys.accessHolders, queryFn: usersWithAccess, staleTime: ADMIN_STALE_TIME });
  const failure = profiles.error ?? holders.error;
  return {
    users: profiles.data && holders.data ? profiles.data : null,
    withAccess: holders.data ?? new Set<string>(),
    error: failure ? errorText(failure, "Impossible de charger les utilisateurs.") : null,
  };
}

/** Saves a patch of a user's profile (details, payment or role); the profile lists are read again before it settles. */
export function useUpdateUser(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (patch: ProfileUpdate) => updateUser(userId, patch),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.profiles }),
  });
}
