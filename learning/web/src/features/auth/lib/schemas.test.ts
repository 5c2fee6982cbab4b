import { describe, expect, it } from "vitest";
import { loginSchema, registerDefaults, registerSchema, newPasswordSchema } from "./schemas";
import { MAX_SESSIONS_MESSAGE, signInErrorMessage, signUpErrorMessage } from "./errors";

function messages(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  const out: Record<string, string> = {};
  for (const issue of result.error?.issues ?? []) out[String(issue.path[0])] ??= issue.message;
  return out;
}

describe("login validation", () => {
  it("refuses blank fields after trimming", () => {
    const r = loginSchema.safeParse({ email: "   ", password: "  " });
    expect(messages(r)).toEqual({ email: "Veuillez remplir tous les champs", password: "Veuillez remplir tous les champs" });
  });
  it("trims the email", () => {
    expect(loginSchema.parse({ email: "  a@b.fr ", password: "secret" }).email).toBe("a@b.fr");
  });
});

describe("registration validation", () => {
  it("gives every French message for an empty form", () => {
    const r = registerSchema.safeParse(registerDefaults);
    expect(messages(r)).toEqual({
      nom: "Le nom est requis",
      email: "Email requis",
      country: "Pays requis",
      whatsappNumber: "Numéro WhatsApp requis",
      password: "Le mot de passe doit contenir au moins 6 caractères",
      confirmPassword: "Veuillez confirmer votre mot de passe",
    });
  });
  it("checks the email format and the matching confirmation", () => {
    const r = registerSchema.safeParse({ ...registerDefaults, nom: "Léa", email: "lea@", country: "France", whatsappNumber: "+33 6", password: "secret1", confirmPassword: "secret2" });
    expect(messages(r)).toEqual({ email: "Email invalide", confirmPassword: "Les mots de passe ne correspondent pas" });
  });
  it("says the database's bounds on the name, country and WhatsApp number", () => {
    const r = registerSchema.safeParse({ ...registerDefaults, nom: "N".repeat(101), email: "lea@example.fr", country: "P".repeat(101), whatsappNumber: "9".repeat(33), password: "secret", confirmPassword: "secret" });
    expect(messages(r)).toEqual({
      nom: "Le nom ne doit pas dépasser 100 caractères.",
      country: "Le pays ne doit pas dépasser 100 caractères.",
      whatsappNumber: "Le numéro WhatsApp ne doit pas dépasser 32 caractères.",
    });
    expect(registerSchema.safeParse({ ...registerDefaults, nom: "N".repeat(100), email: "lea@example.fr", country: "France", whatsappNumber: "9".repeat(32), password: "secret", confirmPassword: "secret" }).success).toBe(true);
  });
  it("defaults the student level to debutant and accepts a valid form", () => {
    expect(registerDefaults.studentLevel).toBe("debutant");
    const ok = registerSchema.safeParse({ ...registerDefaults, nom: "Léa", email: "lea@example.fr", country: "France", whatsappNumber: "+33 6", password: "secret", confirmPassword: "secret" });
    expect(ok.success).toBe(true);
  });
});

describe("password change", () => {
  it("requires a matching confirmation", () => {
    expect(messages(newPasswordSchema.safeParse({ password: "abcdef", confirmPassword: "abcdeg" }))).toEqual({ confirmPassword: "Les mots de passe ne correspondent pas" });
  });
});

describe("auth error texts", () => {
  it("maps the session limit", () => {
    expect(signInErrorMessage(new Error("User has reached the maximum number of sessions"))).toBe(MAX_SESSIONS_MESSAGE);
  });
  it("falls back to the fixed texts", () => {
    expect(signInErrorMessage(new Error(""))).toBe("Erreur de connexion");
    expect(signUpErrorMessage(new Error(""))).toBe("Une erreur s'est produite lors de l'inscription.");
  });
});
