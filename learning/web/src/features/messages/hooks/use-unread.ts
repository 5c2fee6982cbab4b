import * as React from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { listUnread, subscribeInbox } from "@/features/messages/api/messages";
import { applyInboxChange, countBySender, type UnreadMessage } from "@/features/messages/lib/changes";
import { messageKeys } from "@/features/messages/hooks/keys";

const NONE: UnreadMessage[] = [];

/**
 * The user's unread messages, kept live: each realtime change to the inbox updates the cache
 * (a conversation marking messages read updates it too); the list is read again only when the
 * channel (re)joins and when the tab comes back (changes may have been missed meanwhile).
 */
function useUnreadMessages(userId: string | null): UnreadMessage[] {
  const queryClient = useQueryClient();
  const { data } = useQuery({
    queryKey: messageKeys.unread(userId),
    queryFn: () => listUnread(userId!),
    enabled: !!userId,
    staleTime: Infinity,
    refetchOnWindowFocus: "always",
  });

  React.useEffect(() => {
    if (!userId) return;
    const key = messageKeys.unread(userId);
    return subscribeInbox(
      userId,
      (change) => queryClient.setQueryData<UnreadMessage[]>(key, (list) => list && applyInboxChange(list, change, userId)),
      () => void queryClient.invalidateQueries({ queryKey: key }),
    );
  }, [userId, queryClient]);
  return data ?? NONE;
}

/** Number of unread messages for the user, updated live through realtime. */
export function useUnreadCount(userId: string | null): number {
  return useUnreadMessages(userId).length;
}

/** Unread messages for the user per sender (the admin's conversation list), updated live. */
export function useUnreadBySender(userId: string | null): Map<string, number> {
  const unread = useUnreadMessages(userId);
  return React.useMemo(() => countBySender(unread), [unread]);
}
