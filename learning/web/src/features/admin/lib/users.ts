import { dateInputValue, dayStartInstant, expiryInstant, subscriptionStatus } from "@/features/profile";
import { isStudentRole, type Profile, type ProfileUpdate } from "@/types/db";

export type PaidFilter = "all" | "paid" | "unpaid";
export type RoleFilter = "all" | "admin" | "user";

export interface UserFilters {
  search: string;
  paid: PaidFilter;
  role: RoleFilter;
}

export const NO_FILTERS: UserFilters = { search: "", paid: "all", role: "all" };

/** Search (name, e-mail, country, WhatsApp; case-insensitive) and the paid/role filters. */
export function filterUsers(users: Profile[], filters: UserFilters): Profile[] {
  const needle = filters.search.trim().toLowerCase();
  return users.filter((u) => {
    if (filters.paid === "paid" && !u.paid) return false;
    if (filters.paid === "unpaid" && u.paid) return false;
    if (filters.role === "admin" && u.role !== "admin") return false;
    if (filters.role === "user" && u.role === "admin") return false;
    if (!needle) return true;
    return [u.full_name, u.email, u.country, u.whatsapp_number].some((v) => (v ?? "").toLowerCase().includes(needle));
  });
}

export function filtersActive(filters: UserFilters): boolean {
  return filters.paid !== "all" || filters.role !== "all";
}

/** 'Aucun utilisateur trouvé' and its variants for a search term or active filters. */
export function emptyUsersText(filters: UserFilters): { title: string; hint: string | null } {
  const title = "Aucun utilisateur trouvé";
  if (filters.search.trim()) return { title, hint: `Aucun résultat pour « ${filters.search.trim()} ».` };
  if (filtersActive(filters)) return { title, hint: "Aucun utilisateur ne correspond aux filtres actifs." };
  return { title, hint: null };
}

export interface UserStats {
  total: number;
  paid: number;
  admins: number;
  expiringSoon: number;
}

export function userStats(users: Profile[], now: Date = new Date()): UserStats {
  let paid = 0;
  let admins = 0;
  let expiringSoon = 0;
  for (const u of users) {
    if (u.paid) paid++;
    if (u.role === "admin") admins++;
    if (subscriptionStatus(u.paid, u.expire_date, now).banner === "L'abonnement expire bientôt !") expiringSoon++;
  }
  return { total: users.length, paid, admins, expiringSoon };
}

export interface UserEdit {
  full_name: string;
  country: string;
  whatsapp_number: string;
  student_role: string;
  agent: boolean;
}

const trimmedOrNull = (value: string | null | undefined): string | null => {
  const v = (value ?? "").trim();
  return v ? v : null;
};

/** Names, country and WhatsApp are trimmed; empty becomes null. */
export function userEditPatch(values: UserEdit): ProfileUpdate {
  return {
    full_name: trimmedOrNull(values.full_name),
    country: trimmedOrNull(values.country),
    whatsapp_number: trimmedOrNull(values.whatsapp_number),
    student_role: isStudentRole(values.student_role) ? values.student_role : "debutant",
    agent: values.agent,
  };
}

/** Payment fields as ISO strings or null; a date input's day is a Paris day (the expiry: its last instant). */
export function paymentPatch(paid: boolean, datePaid: string, expireDate: string): { paid: boolean; date_paid: string | null; expire_date: string | null } {
  return { paid, date_paid: paid ? dayStartInstant(datePaid) : null, expire_date: paid ? expiryInstant(expireDate) : null };
}

/** A stored instant as the Paris day of a date input ("2025-03-05"). */
export function toDateInput(value: string | null | undefined): string {
  return dateInputValue(value);
}
