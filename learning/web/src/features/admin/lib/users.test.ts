import { describe, expect, it } from "vitest";
import type { Profile } from "@/types/db";
import { emptyUsersText, filterUsers, NO_FILTERS, paymentPatch, toDateInput, userEditPatch, userStats } from "./users";

const base: Profile = { id: "", email: null, full_name: null, country: null, whatsapp_number: null, student_role: "debutant", agent: false, role: "user", paid: false, date_paid: null, expire_date: null, created_at: "2025-01-01T00:00:00Z" };
const now = new Date("2025-06-01T12:00:00Z");
const users: Profile[] = [
  { ...base, id: "1", full_name: "Awa Diallo", email: "awa@example.org", country: "Sénégal", paid: true, expire_date: "2025-06-04T12:00:00Z" },
  { ...base, id: "2", full_name: "Jean Kouassi", email: "jean@example.org", country: "Côte d'Ivoire" },
  { ...base, id: "3", full_name: "Prof", email: "prof@example.com", role: "admin", paid: true },
];

describe("filterUsers", () => {
  it("searches names, e-mails and countries case-insensitively", () => {
    expect(filterUsers(users, { ...NO_FILTERS, search: "AWA" }).map((u) => u.id)).toEqual(["1"]);
    expect(filterUsers(users, { ...NO_FILTERS, search: "ivoire" }).map((u) => u.id)).toEqual(["2"]);
    expect(filterUsers(users, { ...NO_FILTERS, search: "  " })).toHaveLength(3);
  });
  it("filters on payment and role, combined with the search", () => {
    expect(filterUsers(users, { ...NO_FILTERS, paid: "paid" }).map((u) => u.id)).toEqual(["1", "3"]);
    expect(filterUsers(users, { ...NO_FILTERS, paid: "unpaid" }).map((u) => u.id)).toEqual(["2"]);
    expect(filterUsers(users, { ...NO_FILTERS, role: "admin" }).map((u) => u.id)).toEqual(["3"]);
    expect(filterUsers(users, { search: "example.org", paid: "paid", role: "user" }).map((u) => u.id)).toEqual(["1"]);
  });
  it("words the empty state for a search or filters", () => {
    expect(emptyUsersText(NO_FILTERS)).toEqual({ title: "Aucun utilisateur trouvé", hint: null });
    expect(emptyUsersText({ ...NO_FILTERS, search: "zz" }).hint).toContain("« zz »");
    expect(emptyUsersText({ ...NO_FILTERS, role: "admin" }).hint).toBe("Aucun utilisateur ne correspond aux filtres actifs.");
  });
});

describe("userStats", () => {
  it("counts users, paid, admins and subscriptions expiring within 7 days", () => {
    expect(userStats(users, now)).toEqual({ total: 3, paid: 2, admins: 1, expiringSoon: 1 });
  });
});

describe("edit patches", () => {
  it("trims the fields and turns empty ones into null", () => {
    expect(userEditPatch({ full_name: "  Awa  ", country: " ", whatsapp_number: "", student_role: "avancé", agent: true })).toEqual({
      full_name: "Awa",
      country: null,
      whatsapp_number: null,
      student_role: "avancé",
      agent: true,
    });
  });
  it("sends payment dates as ISO strings, null when unpaid or empty", () => {
    const patch = paymentPatch(true, "2025-06-01", "2025-07-01");
    expect(patch.paid).toBe(true);
    expect(toDateInput(patch.date_paid)).toBe("2025-06-01");
    expect(toDateInput(patch.expire_date)).toBe("2025-07-01");
    expect(paymentPatch(true, "", "")).toEqual({ paid: true, date_paid: null, expire_date: null });
    expect(paymentPatch(false, "2025-06-01", "2025-07-01")).toEqual({ paid: false, date_paid: null, expire_date: null });
  });
});
