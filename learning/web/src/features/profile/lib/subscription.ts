import { daysUntilExpiry, frenchParisDay } from "@/features/profile/lib/expiry";

export type SubscriptionKind = "unpaid" | "unlimited" | "active" | "expired";

export interface SubscriptionStatus {
  kind: SubscriptionKind;
  label: string;
  /** Days remaining (active; 0 on the last day), days since expiry (expired), null otherwise. */
  days: number | null;
  /** Text of the "days remaining" field. */
  daysLabel: string;
  banner: string | null;
  /** The expiry's day in Paris, in French ("30 juin 2025"); null without expiry. */
  expiresOn: string | null;
}

export const EXPIRING_SOON_DAYS = 7;
export const EXPIRING_SOON_BANNER = "L'abonnement expire bientôt !";

/** "1 jour", "3 jours": in French 0 and 1 take the singular. */
export function daysText(n: number): string {
  return `${n} jour${Math.abs(n) >= 2 ? "s" : ""}`;
}

/** Days remaining: "Expire aujourd'hui" on the last day, then "1 jour", "2 jours"... */
export function remainingText(days: number): string {
  return days <= 0 ? "Expire aujourd'hui" : daysText(days);
}

/** Days since expiry: "Expiré depuis 1 jour"... ("Expiré aujourd'hui" for 0, never reached by the rule). */
export function expiredText(since: number): string {
  return since <= 0 ? "Expiré aujourd'hui" : `Expiré depuis ${daysText(since)}`;
}

/**
 * Subscription status from paid and expire_date (screens doc, section 4), by the one date rule
 * of lib/expiry: Paris calendar days, the expiry day itself still active.
 */
export function subscriptionStatus(paid: boolean | null | undefined, expireDate: string | null | undefined, now: Date = new Date()): SubscriptionStatus {
  if (!paid) {
    return { kind: "unpaid", label: "Non payé", days: null, daysLabel: "—", banner: "Cet utilisateur n'a pas encore effectué de paiement.", expiresOn: null };
  }
  const expiry = expireDate ? new Date(expireDate) : null;
  if (!expiry || Number.isNaN(expiry.getTime())) {
    return { kind: "unlimited", label: "Payé (sans limite)", days: null, daysLabel: "Illimité", banner: null, expiresOn: null };
  }
  const expiresOn = frenchParisDay(expireDate);
  const days = daysUntilExpiry(expiry, now);
  if (days < 0) {
    return { kind: "expired", label: "Abonnement expiré", days: -days, daysLabel: expiredText(-days), banner: "L'abonnement de cet utilisateur a expiré.", expiresOn };
  }
  return {
    kind: "active",
    label: "Abonnement actif",
    days,
    daysLabel: remainingText(days),
    banner: days <= EXPIRING_SOON_DAYS ? EXPIRING_SOON_BANNER : null,
    expiresOn,
  };
}
