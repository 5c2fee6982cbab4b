import { supabase } from "@/lib/supabase";
import { getContactAdmin } from "@/features/contact";
import type { PrivateMessage } from "@/types/db";

export interface Peer {
  id: string;
  full_name: string | null;
  email?: string | null;
}

export async function countUnread(userId: string): Promise<number> {
  const { count, error } = await supabase().from("private_messages").select("id", { count: "exact", head: true }).eq("recipient_id", userId).eq("is_read", false);
  if (error) return 0;
  return count ?? 0;
}

/** Unread messages to the user per sender: one grouped read (`count()`), rows limited by RLS. */
export async function countUnreadBySender(userId: string): Promise<Map<string, number>> {
  const { data, error } = await supabase().from("private_messages").select("sender_id, unread:count()").eq("recipient_id", userId).eq("is_read", false);
  if (error) return new Map();
  return new Map((data ?? []).map((row: { sender_id: string; unread: number }) => [row.sender_id, row.unread]));
}

/** Live updates of the user's incoming messages; returns the unsubscribe function. */
export function subscribeInbox(userId: string, onChange: () => void): () => void {
  const client = supabase();
  const channel = client
    .channel(`inbox:${userId}:${Math.random().toString(36).slice(2)}`)
    .on("postgres_changes", { event: "*", schema: "public", table: "private_messages", filter: `recipient_id=eq.${userId}` }, onChange)
    .subscribe();
  return () => {
    void client.removeChannel(channel);
  };
}

export function subscribeConversation(userId: string, onChange: () => void): () => void {
  const client = supabase();
  const channel = client
    .channel(`conversation:${userId}:${Math.random().toString(36).slice(2)}`)
    .on("postgres_changes", { event: "*", schema: "public", table: "private_messages", filter: `recipient_id=eq.${userId}` }, onChange)
    .on("postgres_changes", { event: "*", schema: "public", table: "private_messages", filter: `sender_id=eq.${userId}` }, onChange)
    .subscribe();
  return () => {
    void client.removeChannel(channel);
  };
}

/** The designated administrator (get_contact_admin), the learners' only counterpart. */
export async function designatedAdmin(): Promise<Peer | null> {
  try {
    return await getContactAdmin();
  } catch {
    throw new Error("Failed to load users");
  }
}

export async function listNonAdminUsers(): Promise<Peer[]> {
  const { data, error } = await supabase().from("profiles").select("id, full_name, email").neq("role", "admin").order("full_name");
  if (error) throw new Error("Failed to load users");
  return data ?? [];
}

export async function listConversation(userId: string, peerId: string): Promise<PrivateMessage[]> {
  const { data, error } = await supabase()
    .from("private_messages")
    .select("*")
    .or(`and(sender_id.eq.${userId},recipient_id.eq.${peerId}),and(sender_id.eq.${peerId},recipient_id.eq.${userId})`)
    .order("created_at", { ascending: true });
  if (error) throw new Error("Failed to load messages");
  return data ?? [];
}

export async function markRead(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await supabase().from("private_messages").update({ is_read: true }).in("id", ids);
}

export async function sendMessage(senderId: string, recipientId: string, content: string): Promise<void> {
  const { error } = await supabase().from("private_messages").insert({ sender_id: senderId, recipient_id: recipientId, content: content.trim() });
  if (error) throw new Error("Failed to send message");
}

export async function deleteMessage(id: string): Promise<void> {
  const { error, count } = await supabase().from("private_messages").delete({ count: "exact" }).eq("id", id);
  if (error || count === 0) throw new Error("Impossible de supprimer le message");
}
