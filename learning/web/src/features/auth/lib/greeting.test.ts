import { describe, expect, it } from "vitest";
import { greeting, isNewAccount } from "./greeting";

describe("greeting", () => {
  it("welcomes a brand-new account instead of welcoming it back", () => {
    const created = "2025-03-01T10:00:00Z";
    expect(isNewAccount({ created_at: created, last_sign_in_at: "2025-03-01T10:00:00.2Z" })).toBe(true);
    expect(isNewAccount({ created_at: created, last_sign_in_at: undefined })).toBe(true);
    expect(isNewAccount({ created_at: created, last_sign_in_at: "2025-03-04T08:00:00Z" })).toBe(false);
    expect(greeting("Léa", true)).toBe("Bienvenue, Léa ! ");
    expect(greeting("Léa", false)).toBe("Ravi de vous revoir, Léa. ");
    expect(greeting(undefined, false)).toBe("");
  });
});
