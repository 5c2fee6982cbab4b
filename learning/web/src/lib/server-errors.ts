/**
 * The backend answers in English (PostgREST, Storage, Auth, the network layer). What the site
 * shows is French: known answers are said in French here, anything else is left to the
 * caller's fixed French text.
 */
const KNOWN: Array<[RegExp, string]> = [
  [/failed to fetch|networkerror|network request failed|load failed|fetch failed/i, "Connexion au serveur impossible : vérifiez votre connexion puis réessayez."],
  [/jwt expired|invalid jwt|jwt|session.?(missing|expired|not found)|refresh token/i, "Votre session a expiré : reconnectez-vous."],
  [/row-level security|permission denied|not authori[sz]ed|unauthori[sz]ed|forbidden|access denied/i, "Action refusée : vous n'avez pas les droits nécessaires."],
  [/exceeded the maximum allowed size|maximum size exceeded|payload too large|entity too large|too large/i, "Le fichier dépasse la taille maximale autorisée."],
  [/mime type|invalid_mime|content type .* not (allowed|supported)/i, "Ce type de fichier n'est pas accepté."],
  [/already exists|duplicate key|duplicate/i, "Cet élément existe déjà."],
  [/bucket not found/i, "Espace de stockage introuvable."],
  [/not found|no rows|0 rows|pgrst116/i, "Élément introuvable : il a peut-être été supprimé."],
  [/foreign key/i, "Cet élément est lié à un autre qui n'existe plus."],
  [/timed? ?out|timeout/i, "Le serveur n'a pas répondu à temps : réessayez."],
  [/too many requests|rate limit/i, "Trop de demandes : patientez un instant puis réessayez."],
  [/internal server error|bad gateway|service unavailable|gateway timeout/i, "Le serveur a rencontré une erreur : réessayez plus tard."],
];

/** A text already in French (the site's own messages, the database's French bounds). */
export function looksFrench(text: string): boolean {
  return /[àâçéèêëîïôûùüÿœ]|\b(le|la|les|de|du|des|une?|est|pas|vous|votre|impossible|erreur|aucun|veuillez)\b/i.test(text);
}

/** The French for a backend message, or null when it is not one we know. */
export function translateServerMessage(message: string | null | undefined, status?: number | null): string | null {
  const text = (message ?? "").trim();
  if (text && looksFrench(text)) return text;
  for (const [pattern, french] of KNOWN) if (pattern.test(text)) return french;
  if (status && status >= 500) return "Le serveur a rencontré une erreur : réessayez plus tard.";
  if (status === 401 || status === 403) return "Action refusée : vous n'avez pas les droits nécessaires.";
  if (status === 404) return "Élément introuvable : il a peut-être été supprimé.";
  return null;
}

/** The message of any thrown value (Error, PostgREST or Storage error object), or "". */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : "";
}

/** The French for a thrown value: its message when French or known, else `fallback`. */
export function frenchError(error: unknown, fallback: string): string {
  const status = (error as { status?: unknown } | null)?.status;
  return translateServerMessage(messageOf(error), typeof status === "number" ? status : null) ?? fallback;
}

/** An Error with the French of a backend error (see frenchError), the original as its cause. */
export function serverError(error: unknown, fallback: string): Error {
  return new Error(frenchError(error, fallback), { cause: error });
}
