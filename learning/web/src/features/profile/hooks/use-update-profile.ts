import { useMutation, useQueryClient } from "@tanstack/react-query";
import { updateAuthFullName, updateFullName, updateLearnerDetails } from "@/features/profile/api/profile";

export interface ProfileValues {
  full_name: string;
  country: string;
  whatsapp_number: string;
  student_role: string;
}

/**
 * Saves the user's own profile (and the name in the auth metadata, a courtesy that may fail);
 * `refresh` reloads the signed-in profile and the profile lists are read again before it settles.
 */
export function useUpdateProfile(userId: string, refresh: () => Promise<void>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (values: ProfileValues) => {
      await updateFullName(userId, values.full_name);
      await updateLearnerDetails(userId, values);
      await updateAuthFullName(values.full_name).catch(() => undefined);
    },
    onSuccess: () => Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: ["profiles"] })]),
  });
}
