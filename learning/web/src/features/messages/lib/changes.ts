// How a realtime change to private_messages updates the cached lists, without reading them again.
import type { RealtimePostgresChangesPayload } from "@supabase/supabase-js";
import type { PrivateMessage } from "@/types/db";

export type MessageChange = RealtimePostgresChangesPayload<PrivateMessage>;

/** An unread message to the user: enough to count them, per sender. */
export type UnreadMessage = Pick<PrivateMessage, "id" | "sender_id">;

const byDate = (a: PrivateMessage, b: PrivateMessage) => a.created_at.localeCompare(b.created_at);

/** A row inserted or updated: added or replaced by id, the list kept in date order. */
export function upsertMessage(list: PrivateMessage[], row: PrivateMessage): PrivateMessage[] {
  const rest = list.filter((m) => m.id !== row.id);
  return rest.length === list.length ? [...rest, row].sort(byDate) : list.map((m) => (m.id === row.id ? row : m));
}

/** The conversation between the user and a peer after a change (a DELETE carries only the id). */
export function applyConversationChange(list: PrivateMessage[], change: MessageChange, userId: string, peerId: string): PrivateMessage[] {
  if (change.eventType === "DELETE") return list.filter((m) => m.id !== change.old.id);
  const row = change.new;
  const between = (row.sender_id === userId && row.recipient_id === peerId) || (row.sender_id === peerId && row.recipient_id === userId);
  return between ? upsertMessage(list, row) : list;
}

/** The user's unread messages after a change to their inbox (kept as is when it changes nothing). */
export function applyInboxChange(list: UnreadMessage[], change: MessageChange, userId: string): UnreadMessage[] {
  const row = change.eventType === "DELETE" ? null : change.new;
  const id = change.eventType === "DELETE" ? change.old.id : change.new.id;
  const present = list.some((m) => m.id === id);
  if (row && row.recipient_id === userId && !row.is_read) return present ? list : [...list, { id: row.id, sender_id: row.sender_id }];
  return present ? list.filter((m) => m.id !== id) : list;
}

/** The messages marked read removed from the unread ones. */
export function withoutRead(list: UnreadMessage[], ids: readonly string[]): UnreadMessage[] {
  const read = new Set(ids);
  return list.filter((m) => !read.has(m.id));
}

/** Unread messages per sender. */
export function countBySender(list: readonly UnreadMessage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of list) counts.set(m.sender_id, (counts.get(m.sender_id) ?? 0) + 1);
  return counts;
}
