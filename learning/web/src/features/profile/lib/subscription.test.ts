import { describe, expect, it } from "vitest";
import { daysText, expiredText, remainingText, subscriptionStatus } from "./subscription";
import { dateInputValue, dayStartInstant, daysUntilExpiry, expiryInstant, frenchParisDay, parisDay } from "./expiry";

// Instants are written in UTC; Paris is UTC+2 in summer and UTC+1 in winter.
const at = (iso: string) => new Date(iso);
const noonParis = at("2025-06-10T10:00:00Z"); // 10 June, 12:00 in Paris

describe("subscriptionStatus", () => {
  it("is 'Non payé' with the unpaid banner when not paid", () => {
    const s = subscriptionStatus(false, "2026-01-01", noonParis);
    expect(s.label).toBe("Non payé");
    expect(s.banner).toBe("Cet utilisateur n'a pas encore effectué de paiement.");
  });
  it("is unlimited when paid without expiry", () => {
    const s = subscriptionStatus(true, null, noonParis);
    expect(s.label).toBe("Payé (sans limite)");
    expect(s.daysLabel).toBe("Illimité");
    expect(s.banner).toBeNull();
  });
  it("counts an expiry 20 days ahead as 20 days, not 21", () => {
    // The admin picked 30 June: stored as the end of that day in Paris.
    const s = subscriptionStatus(true, expiryInstant("2025-06-30"), noonParis);
    expect(s.label).toBe("Abonnement actif");
    expect(s.days).toBe(20);
    expect(s.daysLabel).toBe("20 jours");
    expect(s.expiresOn).toBe("30 juin 2025");
    expect(s.banner).toBeNull();
  });
  it("keeps an expiry of today active through its last day, with the expiring-soon banner", () => {
    const s = subscriptionStatus(true, expiryInstant("2025-06-10"), noonParis);
    expect(s.kind).toBe("active");
    expect(s.label).toBe("Abonnement actif");
    expect(s.days).toBe(0);
    expect(s.daysLabel).toBe("Expire aujourd'hui");
    expect(s.banner).toBe("L'abonnement expire bientôt !");
    // An instant earlier today (an older row) is still today.
    expect(subscriptionStatus(true, "2025-06-10T05:00:00Z", noonParis).kind).toBe("active");
  });
  it("says tomorrow is 1 day and yesterday is expired since 1 day", () => {
    expect(subscriptionStatus(true, expiryInstant("2025-06-11"), noonParis).daysLabel).toBe("1 jour");
    const yesterday = subscriptionStatus(true, expiryInstant("2025-06-09"), noonParis);
    expect(yesterday.kind).toBe("expired");
    expect(yesterday.label).toBe("Abonnement expiré");
    expect(yesterday.days).toBe(1);
    expect(yesterday.daysLabel).toBe("Expiré depuis 1 jour");
    expect(yesterday.banner).toBe("L'abonnement de cet utilisateur a expiré.");
    expect(subscriptionStatus(true, expiryInstant("2025-06-01"), noonParis).daysLabel).toBe("Expiré depuis 9 jours");
  });
  it("warns when expiring within 7 days, not at 8", () => {
    expect(subscriptionStatus(true, expiryInstant("2025-06-17"), noonParis).banner).toBe("L'abonnement expire bientôt !");
    expect(subscriptionStatus(true, expiryInstant("2025-06-18"), noonParis).banner).toBeNull();
  });
});

describe("Paris days around midnight", () => {
  const lastDay = expiryInstant("2025-06-10")!; // 23:59:59.999 in Paris = 21:59:59.999Z
  it("stores an expiry day as its last instant in Paris, summer and winter", () => {
    expect(lastDay).toBe("2025-06-10T21:59:59.999Z");
    expect(expiryInstant("2025-12-10")).toBe("2025-12-10T22:59:59.999Z");
    expect(dayStartInstant("2025-06-10")).toBe("2025-06-09T22:00:00.000Z");
    // The days clocks change (30 March, 26 October 2025) are still whole days.
    expect(expiryInstant("2025-03-30")).toBe("2025-03-30T21:59:59.999Z");
    expect(expiryInstant("2025-10-26")).toBe("2025-10-26T22:59:59.999Z");
    expect(expiryInstant("pas une date")).toBeNull();
  });
  it("is active until 23:59 in Paris, expired from 00:00 in Paris, whatever UTC says", () => {
    expect(subscriptionStatus(true, lastDay, at("2025-06-10T21:59:00Z")).kind).toBe("active"); // 23:59 Paris
    const justAfter = subscriptionStatus(true, lastDay, at("2025-06-10T22:00:00Z")); // 00:00 Paris, still the 10th in UTC
    expect(justAfter.kind).toBe("expired");
    expect(justAfter.daysLabel).toBe("Expiré depuis 1 jour");
  });
  it("counts Paris days, not UTC days", () => {
    // 23:30 in Paris on the 10th; an instant at 00:30 in Paris on the 11th is tomorrow.
    expect(daysUntilExpiry(at("2025-06-10T22:30:00Z"), at("2025-06-10T21:30:00Z"))).toBe(1);
    expect(parisDay(at("2025-06-10T22:30:00Z"))).toBe("2025-06-11");
    expect(parisDay(at("2025-12-31T23:30:00Z"))).toBe("2026-01-01");
  });
  it("shows a stored instant as its Paris day in the date input and in French", () => {
    expect(dateInputValue(lastDay)).toBe("2025-06-10");
    expect(dateInputValue(dayStartInstant("2025-06-10"))).toBe("2025-06-10");
    expect(dateInputValue(null)).toBe("");
    expect(frenchParisDay(lastDay)).toBe("10 juin 2025");
  });
});

describe("day counts in French", () => {
  it("keeps 0 and 1 singular", () => {
    expect(daysText(0)).toBe("0 jour");
    expect(daysText(1)).toBe("1 jour");
    expect(daysText(2)).toBe("2 jours");
  });
  it("says the last day and the days since expiry", () => {
    expect(remainingText(0)).toBe("Expire aujourd'hui");
    expect(remainingText(3)).toBe("3 jours");
    expect(expiredText(1)).toBe("Expiré depuis 1 jour");
    expect(expiredText(30)).toBe("Expiré depuis 30 jours");
  });
});
