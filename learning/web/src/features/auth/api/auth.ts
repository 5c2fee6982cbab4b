import type { AuthChangeEvent, Session } from "@supabase/supabase-js";
import { supabase } from "@/lib/supabase";
import type { Profile } from "@/types/db";
import type { RegisterValues } from "@/features/auth/lib/schemas";
import { safeNextPath } from "@/features/auth/lib/next-path";

export async function getSession(): Promise<Session | null> {
  const { data } = await supabase().auth.getSession();
  return data.session;
}

export function onAuthChange(cb: (event: AuthChangeEvent, session: Session | null) => void): () => void {
  const { data } = supabase().auth.onAuthStateChange(cb);
  return () => data.subscription.unsubscribe();
}

export async function signIn(email: string, password: string): Promise<Session> {
  const { data, error } = await supabase().auth.signInWithPassword({ email: email.trim(), password });
  if (error) throw error;
  if (!data.session) throw new Error("Erreur de connexion");
  return data.session;
}

/** Signs up; with e-mail confirmations on, the mailed link brings the user back to `next` (a path of the site). */
export async function signUp(values: RegisterValues, next = "/"): Promise<Session | null> {
  const { data, error } = await supabase().auth.signUp({
    email: values.email.trim(),
    password: values.password,
    options: {
      emailRedirectTo: `${window.location.origin}${safeNextPath(next)}`,
      data: {
        full_name: values.nom.trim(),
        country: values.country.trim(),
        whatsapp_number: values.whatsappNumber.trim(),
        student_role: values.studentLevel,
      },
    },
  });
  if (error) throw error;
  return data.session;
}

/**
 * Signs this device out (scope 'local': supabase-js's default, 'global', would end every
 * session of the account, on every device). Sign-out with no session or a session-missing
 * error counts as success; local state is cleared in every case.
 */
export async function signOut(): Promise<void> {
  const { error } = await supabase().auth.signOut({ scope: "local" });
  if (error && !/session/i.test(error.message) && error.name !== "AuthSessionMissingError") throw error;
}

export async function requestPasswordReset(email: string): Promise<void> {
  const redirectTo = `${window.location.origin}/mot-de-passe-oublie`;
  const { error } = await supabase().auth.resetPasswordForEmail(email.trim(), { redirectTo });
  if (error) throw error;
}

export async function updatePassword(password: string): Promise<void> {
  const { error } = await supabase().auth.updateUser({ password });
  if (error) throw error;
}

export async function fetchProfile(userId: string): Promise<Profile | null> {
  const { data, error } = await supabase().from("profiles").select("*").eq("id", userId).maybeSingle();
  if (error) throw error;
  return data;
}
