import { supabase } from "@/lib/supabase";

/** The teacher's contact number and mail (app settings, read through get_site_contact). */
export interface SiteContact {
  whatsapp_number: string | null;
  email: string | null;
}

/** Empty values stand for settings not set. */
export async function getSiteContact(): Promise<SiteContact> {
  const { data, error } = await supabase().rpc("get_site_contact");
  if (error) throw error;
  const value = data && typeof data === "object" && !Array.isArray(data) ? data : {};
  const text = (v: unknown) => (typeof v === "string" && v ? v : null);
  return { whatsapp_number: text(value.whatsapp_number), email: text(value.email) };
}

/** The designated administrator learners message (signed-in users only). */
export async function getContactAdmin(): Promise<{ id: string; full_name: string | null } | null> {
  const { data, error } = await supabase().rpc("get_contact_admin");
  if (error) throw error;
  return data?.[0] ?? null;
}

/** Whether the signed-in user is the owner account (the header's Admin link rule). */
export async function isOwnerAccount(): Promise<boolean> {
  const { data, error } = await supabase().rpc("is_owner_account");
  return !error && data === true;
}
