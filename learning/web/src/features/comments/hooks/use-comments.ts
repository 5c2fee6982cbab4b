import * as React from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { deleteComment, deleteReply, listComments, postComment, postReply, subscribeComments } from "@/features/comments/api/comments";

export const commentKeys = {
  lesson: (contentId: string) => ["comments", contentId] as const,
};

/**
 * A lesson's comments and their replies, with their authors. A realtime change on either
 * table reads them again (a change carries no author name to show).
 */
export function useComments(contentId: string) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: commentKeys.lesson(contentId), queryFn: () => listComments(contentId) });
  React.useEffect(
    () => subscribeComments(contentId, () => void queryClient.invalidateQueries({ queryKey: commentKeys.lesson(contentId) })),
    [contentId, queryClient],
  );
  return query;
}

/** The lesson's comments are read again before a write settles, so the change shows with its toast. */
function useCommentWrite<T>(contentId: string, write: (input: T) => Promise<void>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: write, onSuccess: () => queryClient.invalidateQueries({ queryKey: commentKeys.lesson(contentId) }) });
}

export function usePostComment(userId: string, contentId: string) {
  return useCommentWrite(contentId, (text: string) => postComment(userId, contentId, text));
}

export function usePostReply(userId: string, contentId: string, commentId: string) {
  return useCommentWrite(contentId, (text: string) => postReply(userId, commentId, text));
}

export function useDeleteEntry(contentId: string) {
  return useCommentWrite(contentId, ({ kind, id }: { kind: "comment" | "reply"; id: string }) => (kind === "comment" ? deleteComment(id) : deleteReply(id)));
}
