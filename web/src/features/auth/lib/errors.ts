export const MAX_SESSIONS_MESSAGE =
  "Vous avez atteint le nombre maximum de sessions actives. Déconnectez-vous d'un autre appareil pour continuer.";

/** The text shown when sign-in fails (catalogue 8.1). */
export function signInErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === "object" && error && "message" in error ? String((error as { message: unknown }).message) : "";
  if (message.toLowerCase().includes("maximum number of sessions")) return MAX_SESSIONS_MESSAGE;
  if (message === "Invalid login credentials") return "Email ou mot de passe incorrect";
  return message || "Erreur de connexion";
}

export function signUpErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  if (message.toLowerCase().includes("already registered")) return "Un compte existe déjà avec cet email";
  return message || "Une erreur s'est produite lors de l'inscription.";
}
