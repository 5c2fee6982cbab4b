import { useQuery } from "@tanstack/react-query";
import { designatedAdmin, listNonAdminUsers } from "@/features/messages/api/messages";
import { messageKeys } from "@/features/messages/hooks/keys";

/** The administrator learners write to (null when none is designated). */
export function useDesignatedAdmin() {
  return useQuery({ queryKey: messageKeys.designatedAdmin, queryFn: designatedAdmin });
}

/** The users an administrator may write to (every non-admin profile). */
export function useLearners() {
  return useQuery({ queryKey: messageKeys.learners, queryFn: listNonAdminUsers });
}
