import { EMBED_HOST, isValidEmbedInput, toEmbedUrl } from "@/features/lessons";

/** The host named in the validation messages. */
export const EMBED_HOST_NAME = new URL(EMBED_HOST).host;

export const EMBED_MESSAGES = {
  missing: "Veuillez entrer une URL d'intégration pour la vidéo",
  invalid: `Veuillez entrer une URL ou un code embed ${EMBED_HOST_NAME} valide`,
  invalidToast: `Veuillez entrer une URL ${EMBED_HOST_NAME} valide ou un code embed complet`,
  invalidEnglish: `Please enter a valid ${EMBED_HOST_NAME} URL or embed code`,
} as const;

export type EmbedCheck = { ok: true; url: string } | { ok: false; message: string };

/**
 * A video lesson needs a URL or embed code of the video delivery host (iframe host or an
 * iframe whose src points to it); what is stored is the normalised embed URL.
 */
export function checkVideoEmbed(input: string | null | undefined): EmbedCheck {
  const value = (input ?? "").trim();
  if (!value) return { ok: false, message: EMBED_MESSAGES.missing };
  if (!isValidEmbedInput(value)) return { ok: false, message: EMBED_MESSAGES.invalid };
  const url = toEmbedUrl(value);
  if (!url || !url.startsWith(EMBED_HOST)) return { ok: false, message: EMBED_MESSAGES.invalid };
  return { ok: true, url };
}
