import { supabase } from "@/lib/supabase";

/** The teacher's contact number and mail (app settings, read through get_site_contact). */
export interface SiteContact {
  whatsapp_number: string | null;
  email: string | null;
}

let siteContact: Promise<SiteContact> | null = null;

/** Read once per page load; a failure yields empty values (and is retried next time). */
export function getSiteContact(): Promise<SiteContact> {
  if (!siteContact) {
    siteContact = Promise.resolve(supabase().rpc("get_site_contact")).then(({ data, error }) => {
      if (error || !data) {
        siteContact = null;
        return { whatsapp_number: null, email: null };
      }
      const value = data as Partial<SiteContact>;
      return { whatsapp_number: value.whatsapp_number || null, email: value.email || null };
    });
  }
  return siteContact;
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
