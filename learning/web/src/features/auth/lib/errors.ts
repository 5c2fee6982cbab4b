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

function errorParts(error: unknown): { code: string; message: string } {
  if (!error || typeof error !== "object") return { code: "", message: "" };
  const e = error as { code?: unknown; message?: unknown };
  return { code: typeof e.code === "string" ? e.code : "", message: typeof e.message === "string" ? e.message : "" };
}

/** A mail link that failed (GoTrue's error_code in the redirect fragment), in French. */
export function mailLinkErrorMessage(code: string): string {
  switch (code) {
    case "otp_expired":
      return "Ce lien n'est plus valide : il a déjà été utilisé ou il a expiré. Demandez-en un nouveau ci-dessous.";
    case "session_limit_reached":
      return MAX_SESSIONS_MESSAGE;
    case "user_banned":
      return "Ce compte est suspendu. Contactez l'administrateur.";
    case "over_request_rate_limit":
    case "over_email_send_rate_limit":
      return "Trop de tentatives. Réessayez dans quelques minutes.";
    default:
      return "Ce lien n'a pas pu être utilisé. Demandez-en un nouveau ci-dessous.";
  }
}

/** Asking for a recovery mail failed, in French. */
export function recoveryRequestErrorMessage(error: unknown): string {
  const { code, message } = errorParts(error);
  if (code === "over_email_send_rate_limit") {
    const seconds = /(\d+)\s*seconds?/.exec(message)?.[1];
    return seconds ? `Par sécurité, vous pourrez demander un nouveau lien dans ${seconds} secondes.` : "Par sécurité, attendez un peu avant de demander un nouveau lien.";
  }
  if (code === "over_request_rate_limit") return "Trop de tentatives. Réessayez dans quelques minutes.";
  if (code === "email_address_not_authorized") return "L'envoi d'e-mails n'est pas disponible pour le moment. Contactez l'administrateur.";
  if (code === "validation_failed") return "Email invalide";
  return "Une erreur s'est produite. Veuillez réessayer.";
}

/** Choosing a new password failed, in French (catalogue: 'Erreur lors de la mise à jour du mot de passe'). */
export function passwordUpdateErrorMessage(error: unknown): string {
  const { code } = errorParts(error);
  if (code === "same_password") return "Le nouveau mot de passe doit être différent de l'ancien.";
  if (code === "weak_password") return "Ce mot de passe est trop faible : choisissez-en un plus long ou plus varié.";
  if (code === "session_not_found" || code === "session_expired") return "Votre session a pris fin : demandez un nouveau lien.";
  return "Erreur lors de la mise à jour du mot de passe";
}
