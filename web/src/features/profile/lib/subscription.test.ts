import { describe, expect, it } from "vitest";
import { daysText, expiredText, subscriptionStatus } from "./subscription";

const now = new Date(2025, 5, 10, 12, 0);

describe("subscriptionStatus", () => {
  it("is 'Non payé' with the unpaid banner when not paid", () => {
    const s = subscriptionStatus(false, "2026-01-01", now);
    expect(s.label).toBe("Non payé");
    expect(s.banner).toBe("Cet utilisateur n'a pas encore effectué de paiement.");
  });
  it("is unlimited when paid without expiry", () => {
    const s = subscriptionStatus(true, null, now);
    expect(s.label).toBe("Payé (sans limite)");
    expect(s.daysLabel).toBe("Illimité");
    expect(s.banner).toBeNull();
  });
  it("counts remaining days rounded up", () => {
    const s = subscriptionStatus(true, new Date(2025, 5, 30, 18, 0).toISOString(), now);
    expect(s.label).toBe("Abonnement actif");
    expect(s.days).toBe(21);
    expect(s.banner).toBeNull();
  });
  it("warns when expiring within 7 days", () => {
    expect(subscriptionStatus(true, new Date(2025, 5, 17, 12, 0).toISOString(), now).banner).toBe("L'abonnement expire bientôt !");
    expect(subscriptionStatus(true, new Date(2025, 5, 11, 9, 0).toISOString(), now).days).toBe(1);
  });
  it("is expired when the expiry is past or today", () => {
    const today = subscriptionStatus(true, new Date(2025, 5, 10, 20, 0).toISOString(), now);
    expect(today.label).toBe("Abonnement expiré");
    expect(today.days).toBe(0);
    expect(today.daysLabel).toBe("Expiré aujourd'hui");
    const past = subscriptionStatus(true, new Date(2025, 5, 1, 8, 0).toISOString(), now);
    expect(past.kind).toBe("expired");
    expect(past.days).toBe(9);
    expect(past.daysLabel).toBe("Expiré depuis 9 jours");
    expect(past.banner).toBe("L'abonnement de cet utilisateur a expiré.");
  });
});

describe("day counts in French", () => {
  it("keeps 0 and 1 singular", () => {
    expect(daysText(0)).toBe("0 jour");
    expect(daysText(1)).toBe("1 jour");
    expect(daysText(2)).toBe("2 jours");
    expect(subscriptionStatus(true, new Date(2025, 5, 11, 9, 0).toISOString(), now).daysLabel).toBe("1 jour");
  });
  it("says the subscription expired today rather than '0 jour' ago", () => {
    expect(expiredText(0)).toBe("Expiré aujourd'hui");
    expect(expiredText(1)).toBe("Expiré depuis 1 jour");
    expect(expiredText(30)).toBe("Expiré depuis 30 jours");
  });
});
