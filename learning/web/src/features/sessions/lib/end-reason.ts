/** What the ended device tells its user, by the reason the server recorded. */
export function endedSessionText(reason: string | null | undefined): string {
  switch (reason) {
    case "admin":
      return "Votre session a été terminée par un administrateur.";
    case "user":
      return "Votre session a été terminée depuis un autre de vos appareils.";
    case "expired":
      return "Votre session a expiré. Veuillez vous reconnecter.";
    case "evicted":
      return "Votre session a été terminée pour laisser la place à une connexion par lien e-mail sur un autre appareil (2 appareils au maximum).";
    case "password_changed":
      return "Votre mot de passe a été modifié sur un autre appareil. Veuillez vous reconnecter.";
    default:
      return "Votre session a été terminée. Veuillez vous reconnecter.";
  }
}
