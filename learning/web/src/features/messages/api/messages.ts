import { supabase } from "@/lib/supabase";
import { textLimitError } from "@/lib/text-limits";
import { getContactAdmin } from "@/features/contact";
import type { MessageChange, UnreadMessage } from "@/features/messages/lib/changes";
import type { PrivateMessage } from "@/types/db";

export interface Peer {
  id: string;
  full_name: string | null;
  email?: string | null;
}

/** The user's unread messages (id and sender: the header counts them, the admin per sender). */
export async function listUnread(userId: string): Promise<UnreadMessage[]> {
  const { data, error } = await supabase().from("private_messages").select("id, sender_id").eq("recipient_id", userId).eq("is_read", false);
  if (error) throw error;
  return data ?? [];
}

/**
 * Subscribes to changes of private_messages matching the filters; `onJoined` runs each time
 * the channel is (re)joined, when changes made meanwhile have to be read once. Returns the
 * unsubscribe function.
 */
function subscribeMessages(name: string, filters: string[], onChange: (change: MessageChange) => void, onJoined: () => void): () => void {
  const client = supabase();
  let channel = client.channel(`${name}:${Math.random().toString(36).slice(2)}`);
  for (const filter of filters) channel = channel.on("postgres_changes", { event: "*", schema: "public", table: "private_messages", filter }, (change: MessageChange) => onChange(change));
  channel.subscribe((status) => {
    if (status === "SUBSCRIBED") onJoined();
  });
  return () => {
    void client.removeChannel(channel);
  };
}

/** Live changes of the user's incoming messages. */
export function subscribeInbox(userId: string, onChange: (change: MessageChange) => void, onJoined: () => void): () => void {
  return subscribeMessages(`inbox:${userId}`, [`recipient_id=eq.${userId}`], onChange, onJoined);
}

/** Live changes of every message the user sends or receives. */
export function subscribeConversation(userId: string, onChange: (change: MessageChange) => void, onJoined: () => void): () => void {
  return subscribeMessages(`conversation:${userId}`, [`recipient_id=eq.${userId}`, `sender_id=eq.${userId}`], onChange, onJoined);
}

/** The designated administrator (get_contact_admin), the learners' only counterpart. */
export async function designatedAdmin(): Promise<Peer | null> {
  try {
    return await getContactAdmin();
  } catch {
    throw new Error("Impossible de charger les utilisateurs.");
  }
}

export async function listNonAdminUsers(): Promise<Peer[]> {
  const { data, error } = await supabase().from("profiles").select("id, full_name, email").neq("role", "admin").order("full_name");
  if (error) throw new Error("Impossible de charger les utilisateurs.");
  return data ?? [];
}

export async function listConversation(userId: string, peerId: string): Promise<PrivateMessage[]> {
  const { data, error } = await supabase()
    .from("private_messages")
    .select("*")
    .or(`and(sender_id.eq.${userId},recipient_id.eq.${peerId}),and(sender_id.eq.${peerId},recipient_id.eq.${userId})`)
    .order("created_at", { ascending: true });
  if (error) throw new Error("Impossible de charger les messages.");
  return data ?? [];
}

export async function markRead(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const { error } = await supabase().from("private_messages").update({ is_read: true }).in("id", ids);
  if (error) throw error;
}

/** Sends a message; returns the stored row. */
export async function sendMessage(senderId: string, recipientId: string, content: string): Promise<PrivateMessage> {
  const { data, error } = await supabase().from("private_messages").insert({ sender_id: senderId, recipient_id: recipientId, content: content.trim() }).select().single();
  if (error || !data) throw textLimitError(error) ?? new Error("Impossible d'envoyer le message.");
  return data;
}

export async function deleteMessage(id: string): Promise<void> {
  const { error, count } = await supabase().from("private_messages").delete({ count: "exact" }).eq("id", id);
  if (error || count === 0) throw new Error("Impossible de supprimer le message");
}
