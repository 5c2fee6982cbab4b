// Resumable uploads (TUS) to Supabase Storage's /storage/v1/upload/resumable, set up as the
// Storage docs show for supabase-js apps ("Resumable uploads"): 6 MiB chunks, retries, the
// user's token, bucket and object in the upload's metadata. One upload is one Promise with
// its progress and an AbortSignal to cancel it. An upload cut short (network lost, tab closed)
// is resumed by the next upload of the same file to the same folder: the object keeps the
// name its first attempt gave it.
import type { DetailedError, PreviousUpload, Upload, UploadOptions } from "tus-js-client";
import { appConfig } from "@/config/app";
import { supabase } from "@/lib/supabase";
import { translateServerMessage } from "@/lib/server-errors";

/** Storage requires 6 MiB chunks (every chunk but the last). */
export const RESUMABLE_CHUNK_SIZE = 6 * 1024 * 1024;
/**
 * Delays (ms) before each retry of a network fault or 5xx, then the upload fails: three tries
 * more within about 10 s (the docs' [0, 3000, 5000, 10000, 20000] kept an admin waiting 39 s
 * on a refusal, with nothing said). A cut upload resumes where it stopped when relaunched.
 */
export const RETRY_DELAYS = [1000, 3000, 6000];

export interface ResumableTarget {
  bucket: string;
  /** Object name inside the bucket (folders with '/'). */
  objectName: string;
  contentType: string;
  /** Seconds, as storage-js's cacheControl option (storage-api stores max-age=N). */
  cacheControl?: string;
  upsert?: boolean;
}

export interface UploadProgress {
  bytesSent: number;
  bytesTotal: number;
  percent: number;
}

export interface UploadRetry {
  /** 1 for the first retry. */
  attempt: number;
  attempts: number;
  /** Wait before it (ms). */
  delayMs: number;
}

export interface ResumableOptions {
  onProgress?: (progress: UploadProgress) => void;
  /** Called when a network fault or server error is about to be retried: try `attempt` of `attempts`. */
  onRetry?: (retry: UploadRetry) => void;
  signal?: AbortSignal;
}

/** Why an upload did not complete: `cancelled` when the signal aborted it. */
export class ResumableUploadError extends Error {
  readonly cancelled: boolean;
  readonly status: number | null;
  constructor(message: string, options: { cancelled?: boolean; status?: number | null; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "ResumableUploadError";
    this.cancelled = options.cancelled ?? false;
    this.status = options.status ?? null;
  }
}

export const CANCELLED_MESSAGE = "Téléversement annulé";
export const CONNECTION_LOST_MESSAGE = "la connexion au serveur a été perdue ; relancez le téléversement, il reprendra où il s'est arrêté";

export function isCancelledUpload(error: unknown): boolean {
  return error instanceof ResumableUploadError && error.cancelled;
}

/** Whole percent of the bytes sent: 100 only once every byte is sent; 0 for an unknown total. */
export function uploadPercent(bytesSent: number, bytesTotal: number): number {
  if (!(bytesTotal > 0) || !Number.isFinite(bytesSent)) return 0;
  return Math.max(0, Math.min(100, Math.floor((bytesSent / bytesTotal) * 100)));
}

/** The TUS endpoint of a project URL. */
export function resumableEndpoint(supabaseUrl: string): string {
  return `${supabaseUrl.replace(/\/+$/, "")}/storage/v1/upload/resumable`;
}

/** Headers of every TUS request: the user's token (RLS decides), the API key, the upsert flag. */
export function uploadHeaders(accessToken: string, apiKey: string, upsert = false): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${accessToken}`, "x-upsert": upsert ? "true" : "false" };
  if (apiKey) headers.apikey = apiKey;
  return headers;
}

/** The Upload-Metadata storage reads: bucket, object, content type, cache control. */
export function uploadMetadata(target: ResumableTarget): Record<string, string> {
  return { bucketName: target.bucket, objectName: target.objectName, contentType: target.contentType, cacheControl: target.cacheControl ?? "3600" };
}

const TYPES_BY_EXTENSION: Record<string, string> = {
  pdf: "application/pdf",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  mp4: "video/mp4",
  mov: "video/quicktime",
  avi: "video/x-msvideo",
  webm: "video/webm",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  m4a: "audio/mp4",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  webp: "image/webp",
};

/** The browser's type of a file, else one from its extension, else application/octet-stream. */
export function contentTypeOf(file: { name: string; type: string }): string {
  if (file.type) return file.type;
  const dot = file.name.lastIndexOf(".");
  const ext = dot > 0 ? file.name.slice(dot + 1).toLowerCase() : "";
  return TYPES_BY_EXTENSION[ext] ?? "application/octet-stream";
}

function folderOf(objectName: string): string {
  const slash = objectName.lastIndexOf("/");
  return slash >= 0 ? objectName.slice(0, slash + 1) : "";
}

/** The name without its folder and its `{timestamp}_` prefix. */
function baseName(objectName: string): string {
  return objectName.slice(folderOf(objectName).length).replace(/^\d+_/, "");
}

/**
 * The unfinished upload of this file to resume, if any: same bucket, same folder and same name
 * but for the timestamp (tus-js-client already matched the file itself by its fingerprint).
 * The most recent one wins.
 */
export function previousUploadFor(previous: PreviousUpload[], target: ResumableTarget): PreviousUpload | null {
  const matching = previous.filter((p) => {
    const name = p.metadata?.objectName;
    return !!p.uploadUrl && p.metadata?.bucketName === target.bucket && typeof name === "string" && folderOf(name) === folderOf(target.objectName) && baseName(name) === baseName(target.objectName);
  });
  matching.sort((a, b) => Date.parse(b.creationTime) - Date.parse(a.creationTime));
  return matching[0] ?? null;
}

/** A body's message: storage-api answers TUS errors as text; JSON bodies carry `message`. */
function bodyMessage(body: string): string {
  const text = body.trim();
  if (text.startsWith("{")) {
    try {
      const parsed = JSON.parse(text) as { message?: unknown; error?: unknown };
      if (typeof parsed.message === "string" && parsed.message) return parsed.message;
      if (typeof parsed.error === "string" && parsed.error) return parsed.error;
    } catch {
      // Not JSON after all: the text itself.
    }
  }
  return text;
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** Why a tus-js-client error happened, in French words for the admin (storage answers in English). */
export function uploadErrorReason(error: unknown): string {
  const detailed = error as Partial<DetailedError> | null;
  const response = detailed?.originalResponse;
  if (response) {
    const status = response.getStatus();
    const french = translateServerMessage(bodyMessage(response.getBody() ?? ""), status);
    return french ? lowerFirst(french) : `le serveur a refusé l'envoi (erreur HTTP ${status})`;
  }
  // A request was sent but nothing came back: the network (or the server) went away.
  if (detailed?.originalRequest) return CONNECTION_LOST_MESSAGE;
  const message = error instanceof Error ? error.message : "";
  const french = message ? translateServerMessage(message) : null;
  return french ? lowerFirst(french) : "erreur inconnue";
}

function statusOf(error: unknown): number | null {
  return (error as Partial<DetailedError> | null)?.originalResponse?.getStatus() ?? null;
}

/** tus-js-client's own rule: retry unless a 4xx other than 409 / 423, and only when online. */
function shouldRetry(error: DetailedError): boolean {
  const status = error.originalResponse?.getStatus() ?? 0;
  const refused = status >= 400 && status < 500 && status !== 409 && status !== 423;
  const offline = typeof navigator !== "undefined" && navigator.onLine === false;
  return !refused && !offline;
}

/**
 * Uploads `file` to `target` through TUS and resolves with the object name it was stored
 * under (the one of a resumed earlier attempt, else the target's). Rejects with a
 * ResumableUploadError whose message says why; cancelled when `signal` aborted it (the
 * server's partial upload is then deleted).
 */
export async function resumableUpload(file: File, target: ResumableTarget, options: ResumableOptions = {}): Promise<string> {
  const { signal, onProgress, onRetry } = options;
  if (signal?.aborted) throw new ResumableUploadError(CANCELLED_MESSAGE, { cancelled: true });
  const client = supabase();
  const { data } = await client.auth.getSession();
  const session = data.session;
  if (!session) throw new Error("Vous devez être connecté pour téléverser un fichier.");
  // Kept out of the first load: only the admin's upload forms need it.
  const tus = await import("tus-js-client");

  // tus-js-client reads these headers for every request: a token refreshed during a long
  // upload is used by the next chunk.
  const headers = uploadHeaders(session.access_token, appConfig.supabaseAnonKey, target.upsert);
  const { data: subscription } = client.auth.onAuthStateChange((_event, next) => {
    if (next?.access_token) headers.authorization = `Bearer ${next.access_token}`;
  });

  try {
    return await new Promise<string>((resolve, reject) => {
      let objectName = target.objectName;
      let settled = false;
      const finish = (action: () => void) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener("abort", cancel);
        action();
      };
      const tusOptions: UploadOptions = {
        endpoint: resumableEndpoint(appConfig.supabaseUrl),
        retryDelays: RETRY_DELAYS,
        headers,
        uploadDataDuringCreation: true,
        removeFingerprintOnSuccess: true,
        metadata: uploadMetadata(target),
        chunkSize: RESUMABLE_CHUNK_SIZE,
        onShouldRetry: (error, retryAttempt) => {
          const retry = shouldRetry(error);
          if (retry) onRetry?.({ attempt: retryAttempt + 1, attempts: RETRY_DELAYS.length, delayMs: RETRY_DELAYS[retryAttempt] ?? 0 });
          return retry;
        },
        onProgress: (bytesSent, bytesTotal) => onProgress?.({ bytesSent, bytesTotal, percent: uploadPercent(bytesSent, bytesTotal) }),
        onError: (error) => finish(() => reject(new ResumableUploadError(uploadErrorReason(error), { status: statusOf(error), cause: error }))),
        onSuccess: () => finish(() => resolve(objectName)),
      };
      const upload: Upload = new tus.Upload(file, tusOptions);
      function cancel() {
        finish(() => reject(new ResumableUploadError(CANCELLED_MESSAGE, { cancelled: true })));
        // Terminating deletes the server's partial upload and forgets the fingerprint.
        upload.abort(true).catch((error: unknown) => console.warn("resumable upload termination", error));
      }
      signal?.addEventListener("abort", cancel);

      // No stored uploads to look at (storage refused, say): a fresh upload.
      upload
        .findPreviousUploads()
        .catch((): PreviousUpload[] => [])
        .then((previous) => {
          if (settled) return;
          const resumed = previousUploadFor(previous, target);
          if (resumed) {
            objectName = resumed.metadata.objectName;
            upload.options.metadata = uploadMetadata({ ...target, objectName });
            upload.resumeFromPreviousUpload(resumed);
          }
          upload.start();
        })
        .catch((error: unknown) => finish(() => reject(new ResumableUploadError(uploadErrorReason(error), { cause: error }))));
    });
  } finally {
    subscription.subscription.unsubscribe();
  }
}
