import * as React from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { deleteMessage, listConversation, markRead, sendMessage, subscribeConversation } from "@/features/messages/api/messages";
import { applyConversationChange, upsertMessage, withoutRead, type UnreadMessage } from "@/features/messages/lib/changes";
import { messageKeys } from "@/features/messages/hooks/keys";
import type { PrivateMessage } from "@/types/db";

/**
 * The conversation between the user and a peer, kept live: each realtime change updates the
 * cached list (read again only when the channel (re)joins), and the messages received are
 * marked read as they show.
 */
export function useConversation(userId: string, peerId: string) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: messageKeys.conversation(userId, peerId), queryFn: () => listConversation(userId, peerId) });

  React.useEffect(() => {
    const key = messageKeys.conversation(userId, peerId);
    return subscribeConversation(
      userId,
      (change) => queryClient.setQueryData<PrivateMessage[]>(key, (list) => list && applyConversationChange(list, change, userId, peerId)),
      () => void queryClient.invalidateQueries({ queryKey: key }),
    );
  }, [userId, peerId, queryClient]);

  const read = useMutation({
    mutationFn: (ids: string[]) => markRead(ids),
    onSuccess: (_data, ids) => {
      const done = new Set(ids);
      queryClient.setQueryData<UnreadMessage[]>(messageKeys.unread(userId), (list) => list && withoutRead(list, ids));
      queryClient.setQueryData<PrivateMessage[]>(messageKeys.conversation(userId, peerId), (list) => list?.map((m) => (done.has(m.id) ? { ...m, is_read: true } : m)));
    },
  });
  const { mutate: markShownRead } = read;
  // Each received message is marked read once, whether it came with the list or live.
  const requested = React.useRef(new Set<string>());
  const messages = query.data;
  React.useEffect(() => {
    const ids = (messages ?? []).filter((m) => m.recipient_id === userId && !m.is_read && !requested.current.has(m.id)).map((m) => m.id);
    if (ids.length === 0) return;
    for (const id of ids) requested.current.add(id);
    markShownRead(ids);
  }, [messages, userId, markShownRead]);

  return query;
}

/** Sends a message to the peer; the stored row joins the conversation at once. */
export function useSendMessage(userId: string, peerId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (text: string) => sendMessage(userId, peerId, text),
    onSuccess: (row) => queryClient.setQueryData<PrivateMessage[]>(messageKeys.conversation(userId, peerId), (list) => list && upsertMessage(list, row)),
  });
}

/** Deletes a message of the conversation (refused by the server when not allowed). */
export function useDeleteMessage(userId: string, peerId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteMessage(id),
    onSuccess: (_data, id) => queryClient.setQueryData<PrivateMessage[]>(messageKeys.conversation(userId, peerId), (list) => list?.filter((m) => m.id !== id)),
  });
}
