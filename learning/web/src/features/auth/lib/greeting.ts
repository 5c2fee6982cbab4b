import type { User } from "@supabase/supabase-js";

/** Signed in only once, at sign-up: a brand-new account is welcomed, not welcomed back. */
export function isNewAccount(user: Pick<User, "created_at" | "last_sign_in_at">): boolean {
  if (!user.last_sign_in_at) return true;
  const created = Date.parse(user.created_at);
  const lastSignIn = Date.parse(user.last_sign_in_at);
  return Number.isNaN(created) || Number.isNaN(lastSignIn) || lastSignIn - created < 60_000;
}

/** The welcome page's line above 'Que souhaitez-vous étudier aujourd'hui ?'. */
export function greeting(name: string | undefined, isNew: boolean): string {
  if (!name) return isNew ? "Bienvenue ! " : "";
  return isNew ? `Bienvenue, ${name} ! ` : `Ravi de vous revoir, ${name}. `;
}
