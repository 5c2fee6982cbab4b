import LIMITS from "@/config/text-limits.json";

/**
 * The database bounds every free text the site stores (migrations/sql/0010_text_bounds.sql,
 * constraints named <table>_<column>_max_length; config/text-limits.json holds their numbers,
 * checked against the database by tests/app/test_text_bounds.py). The forms say a bound
 * before sending; a write the database still refuses gets the same French message.
 */
type Constraint = keyof typeof LIMITS;

interface Bound {
  constraint: Constraint;
  /** The subject of the French message ("Le commentaire ne doit pas dépasser ..."). */
  subject: string;
  /** Object names are counted in bytes, as storage counts them; texts in characters. */
  bytes?: boolean;
}

const BOUNDS = {
  comment: { constraint: "content_comments_content_max_length", subject: "Le commentaire" },
  reply: { constraint: "comment_replies_content_max_length", subject: "La réponse" },
  message: { constraint: "private_messages_content_max_length", subject: "Le message" },
  fullName: { constraint: "profiles_full_name_max_length", subject: "Le nom" },
  country: { constraint: "profiles_country_max_length", subject: "Le pays" },
  whatsapp: { constraint: "profiles_whatsapp_number_max_length", subject: "Le numéro WhatsApp" },
  bookTitle: { constraint: "books_title_max_length", subject: "Le titre" },
  bookDescription: { constraint: "books_description_max_length", subject: "La description" },
  bookFile: { constraint: "books_file_path_max_length", subject: "Le nom du fichier", bytes: true },
  bookCover: { constraint: "books_cover_url_max_length", subject: "Le nom de la couverture", bytes: true },
  courseTitle: { constraint: "courses_title_max_length", subject: "Le titre" },
  courseDescription: { constraint: "courses_description_max_length", subject: "La description" },
  courseCover: { constraint: "courses_cover_url_max_length", subject: "Le nom de la couverture", bytes: true },
  contentTitle: { constraint: "course_content_title_max_length", subject: "Le titre" },
  contentDescription: { constraint: "course_content_description_max_length", subject: "La description" },
  contentFile: { constraint: "course_content_file_path_max_length", subject: "Le nom du fichier", bytes: true },
  contentEmbed: { constraint: "course_content_video_embed_url_max_length", subject: "L'URL de la vidéo" },
} satisfies Record<string, Bound>;

export type TextField = keyof typeof BOUNDS;

const bound = (field: TextField): Bound => BOUNDS[field];

/** The field's bound (characters, or bytes for object names). */
export function maxLength(field: TextField): number {
  return LIMITS[bound(field).constraint];
}

/** Length as Postgres counts it: code points (char_length), or UTF-8 bytes (octet_length). */
export function storedLength(field: TextField, value: string): number {
  return bound(field).bytes ? new TextEncoder().encode(value).length : Array.from(value).length;
}

const bounded = (field: TextField) => {
  const { subject, bytes } = bound(field);
  return `${subject} ne doit pas dépasser ${maxLength(field).toLocaleString("fr-FR")} ${bytes ? "octets" : "caractères"}`;
};

/** "Le commentaire ne doit pas dépasser 2 000 caractères." */
export function limitMessage(field: TextField): string {
  return `${bounded(field)}.`;
}

/**
 * The French message when the value, as it is stored (trimmed), is over the field's bound,
 * with its length, so the writer knows how much to take out.
 */
export function tooLong(field: TextField, value: string | null | undefined): string | undefined {
  const length = storedLength(field, (value ?? "").trim());
  return length > maxLength(field) ? `${bounded(field)} (${length.toLocaleString("fr-FR")} actuellement).` : undefined;
}

const BY_CONSTRAINT = new Map(Object.entries(BOUNDS).map(([field, b]) => [b.constraint as string, field as TextField]));

/** A write the database refused for a text over its bound; its message is the French one. */
export class TextLimitError extends Error {
  readonly field: TextField;
  constructor(field: TextField, options?: ErrorOptions) {
    super(limitMessage(field), options);
    this.name = "TextLimitError";
    this.field = field;
  }
}

/**
 * A write refused by one of the bounds (PostgREST's 400 with code 23514, the constraint named
 * in its message) -> a TextLimitError with the field's French message; anything else -> null.
 * Throw it where the API's error is at hand: `throw textLimitError(error) ?? new Error(...)`.
 */
export function textLimitError(error: unknown): TextLimitError | null {
  if (error instanceof TextLimitError) return error;
  const e = error as { code?: unknown; message?: unknown; details?: unknown } | null;
  if (!e || e.code !== "23514") return null;
  const text = `${typeof e.message === "string" ? e.message : ""} ${typeof e.details === "string" ? e.details : ""}`;
  const name = /check constraint "([a-z_]+_max_length)"/.exec(text)?.[1];
  const field = name ? BY_CONSTRAINT.get(name) : undefined;
  return field ? new TextLimitError(field, { cause: error }) : null;
}
