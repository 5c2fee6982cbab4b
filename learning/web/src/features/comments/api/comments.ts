import { supabase } from "@/lib/supabase";
import { textLimitError } from "@/lib/text-limits";
import type { CommentRow, ReplyRow, Role } from "@/types/db";

export interface Author {
  full_name: string | null;
  role: Role | null;
}
export interface ReplyView extends ReplyRow {
  author: Author | null;
}
export interface CommentView extends CommentRow {
  author: Author | null;
  replies: ReplyView[];
}

async function authors(ids: string[]): Promise<Record<string, Author>> {
  if (ids.length === 0) return {};
  const { data } = await supabase().from("profiles").select("id, full_name, role").in("id", ids);
  return Object.fromEntries((data ?? []).map((p: { id: string } & Author) => [p.id, { full_name: p.full_name, role: p.role }]));
}

export async function listComments(contentId: string): Promise<CommentView[]> {
  const { data: comments, error } = await supabase().from("content_comments").select("*").eq("content_id", contentId).order("created_at", { ascending: true });
  if (error) throw new Error("Impossible de charger les commentaires.");
  const rows = comments ?? [];
  let replies: ReplyRow[] = [];
  if (rows.length > 0) {
    const { data, error: replyError } = await supabase().from("comment_replies").select("*").in("comment_id", rows.map((c) => c.id)).order("created_at", { ascending: true });
    if (replyError) throw new Error("Impossible de charger les commentaires.");
    replies = data ?? [];
  }
  const people = await authors([...new Set([...rows.map((c) => c.user_id), ...replies.map((r) => r.user_id)])]);
  return rows.map((c) => ({
    ...c,
    author: people[c.user_id] ?? null,
    replies: replies.filter((r) => r.comment_id === c.id).map((r) => ({ ...r, author: people[r.user_id] ?? null })),
  }));
}

export async function postComment(userId: string, contentId: string, content: string): Promise<void> {
  const { error } = await supabase().from("content_comments").insert({ content: content.trim(), user_id: userId, content_id: contentId });
  if (error) throw textLimitError(error) ?? new Error("Impossible de publier le commentaire.");
}

export async function postReply(userId: string, commentId: string, content: string): Promise<void> {
  const { error } = await supabase().from("comment_replies").insert({ content: content.trim(), user_id: userId, comment_id: commentId });
  if (error) throw textLimitError(error) ?? new Error("Impossible de publier la réponse.");
}

export async function deleteComment(id: string): Promise<void> {
  const { error, count } = await supabase().from("content_comments").delete({ count: "exact" }).eq("id", id);
  if (error) throw new Error("Impossible de supprimer le commentaire.");
  if (count === 0) throw new Error("Vous n'avez pas le droit de supprimer ce commentaire.");
}

export async function deleteReply(id: string): Promise<void> {
  const { error, count } = await supabase().from("comment_replies").delete({ count: "exact" }).eq("id", id);
  if (error) throw new Error("Impossible de supprimer la réponse.");
  if (count === 0) throw new Error("Vous n'avez pas le droit de supprimer cette réponse.");
}

/** Realtime on both tables refreshes the view; returns the unsubscribe function. */
export function subscribeComments(contentId: string, onChange: () => void): () => void {
  const client = supabase();
  const channel = client
    .channel(`comments:${contentId}:${Math.random().toString(36).slice(2)}`)
    .on("postgres_changes", { event: "*", schema: "public", table: "content_comments", filter: `content_id=eq.${contentId}` }, onChange)
    .on("postgres_changes", { event: "*", schema: "public", table: "comment_replies" }, onChange)
    .subscribe();
  return () => {
    void client.removeChannel(channel);
  };
}
