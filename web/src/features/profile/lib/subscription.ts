import { differenceInCalendarDays, startOfDay } from "date-fns";

export type SubscriptionKind = "unpaid" | "unlimited" | "active" | "expired";

export interface SubscriptionStatus {
  kind: SubscriptionKind;
  label: string;
  /** Days remaining (active), days since expiry (expired), null otherwise. */
  days: number | null;
  /** Text of the "days remaining" field. */
  daysLabel: string;
  banner: string | null;
}

export const EXPIRING_SOON_DAYS = 7;
const DAY_MS = 86_400_000;

/** "1 jour", "3 jours": in French 0 and 1 take the singular. */
export function daysText(n: number): string {
  return `${n} jour${Math.abs(n) >= 2 ? "s" : ""}`;
}

/** Days since expiry: "Expiré aujourd'hui" on the day itself, then "Expiré depuis 1 jour"... */
export function expiredText(since: number): string {
  return since <= 0 ? "Expiré aujourd'hui" : `Expiré depuis ${daysText(since)}`;
}

/** Subscription status from paid and expire_date (screens doc, section 4). */
export function subscriptionStatus(paid: boolean | null | undefined, expireDate: string | null | undefined, now: Date = new Date()): SubscriptionStatus {
  if (!paid) {
    return { kind: "unpaid", label: "Non payé", days: null, daysLabel: "—", banner: "Cet utilisateur n'a pas encore effectué de paiement." };
  }
  if (!expireDate) {
    return { kind: "unlimited", label: "Payé (sans limite)", days: null, daysLabel: "Illimité", banner: null };
  }
  const expiry = new Date(expireDate);
  const remainingMs = expiry.getTime() - now.getTime();
  // Expiry past or today counts as expired.
  if (remainingMs <= 0 || differenceInCalendarDays(expiry, now) === 0) {
    const since = Math.max(0, differenceInCalendarDays(startOfDay(now), startOfDay(expiry)));
    return { kind: "expired", label: "Abonnement expiré", days: since, daysLabel: expiredText(since), banner: "L'abonnement de cet utilisateur a expiré." };
  }
  const days = Math.ceil(remainingMs / DAY_MS);
  return {
    kind: "active",
    label: "Abonnement actif",
    days,
    daysLabel: daysText(days),
    banner: days <= EXPIRING_SOON_DAYS ? "L'abonnement expire bientôt !" : null,
  };
}
