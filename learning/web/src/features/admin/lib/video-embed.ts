import { EMBED_HOST, VIDEO_SITE_NAME, toEmbedUrl } from "@/features/lessons";

/** The hosts named in the field's label and the validation messages. */
export const EMBED_HOST_NAME = `${new URL(EMBED_HOST).host} ou ${VIDEO_SITE_NAME}`;

export const EMBED_MESSAGES = {
  missing: "Veuillez entrer une URL d'intégration pour la vidéo",
  invalid: `Veuillez entrer une URL ou un code embed ${EMBED_HOST_NAME} valide`,
  invalidToast: `Veuillez entrer une URL ${EMBED_HOST_NAME} valide ou un code embed complet`,
} as const;

export type EmbedCheck = { ok: true; url: string } | { ok: false; message: string };

/**
 * A video lesson needs a link or embed code of the video delivery host or of the video site
 * (watch and short links converted); what is stored is the normalised embed URL.
 */
export function checkVideoEmbed(input: string | null | undefined): EmbedCheck {
  const value = (input ?? "").trim();
  if (!value) return { ok: false, message: EMBED_MESSAGES.missing };
  const url = toEmbedUrl(value);
  return url ? { ok: true, url } : { ok: false, message: EMBED_MESSAGES.invalid };
}
