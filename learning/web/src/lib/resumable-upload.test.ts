import { describe, expect, it } from "vitest";
import { DetailedError, type HttpRequest, type HttpResponse, type PreviousUpload } from "tus-js-client";
import {
  CANCELLED_MESSAGE,
  CONNECTION_LOST_MESSAGE,
  contentTypeOf,
  isCancelledUpload,
  previousUploadFor,
  RESUMABLE_CHUNK_SIZE,
  resumableEndpoint,
  ResumableUploadError,
  uploadErrorReason,
  uploadHeaders,
  uploadMetadata,
  uploadPercent,
} from "./resumable-upload";

describe("uploadPercent", () => {
  it("is the whole percent of the bytes sent", () => {
    expect(uploadPercent(0, 14_000_000)).toBe(0);
    expect(uploadPercent(RESUMABLE_CHUNK_SIZE, 3 * RESUMABLE_CHUNK_SIZE)).toBe(33);
    expect(uploadPercent(2 * RESUMABLE_CHUNK_SIZE, 3 * RESUMABLE_CHUNK_SIZE)).toBe(66);
    expect(uploadPercent(7_000_000, 14_000_000)).toBe(50);
  });
  it("reaches 100 only once every byte is sent", () => {
    expect(uploadPercent(999, 1000)).toBe(99);
    expect(uploadPercent(14_000_000 - 1, 14_000_000)).toBe(99);
    expect(uploadPercent(1000, 1000)).toBe(100);
  });
  it("stays within 0..100 for odd reports", () => {
    expect(uploadPercent(2000, 1000)).toBe(100);
    expect(uploadPercent(-5, 1000)).toBe(0);
    expect(uploadPercent(10, 0)).toBe(0);
    expect(uploadPercent(Number.NaN, 1000)).toBe(0);
    expect(uploadPercent(10, Number.NaN)).toBe(0);
  });
});

describe("what an upload sends", () => {
  it("posts to the project's TUS endpoint", () => {
    expect(resumableEndpoint("http://127.0.0.1:8000")).toBe("http://127.0.0.1:8000/storage/v1/upload/resumable");
    expect(resumableEndpoint("https://ex.supabase.co/")).toBe("https://ex.supabase.co/storage/v1/upload/resumable");
  });
  it("sends the user's token, the API key and the upsert flag", () => {
    expect(uploadHeaders("tok", "anon")).toEqual({ authorization: "Bearer tok", apikey: "anon", "x-upsert": "false" });
    expect(uploadHeaders("tok", "anon", true)).toEqual({ authorization: "Bearer tok", apikey: "anon", "x-upsert": "true" });
    expect(uploadHeaders("tok", "")).toEqual({ authorization: "Bearer tok", "x-upsert": "false" });
  });
  it("names bucket, object, content type and cache control in the metadata", () => {
    expect(uploadMetadata({ bucket: "books", objectName: "1700000000000_mon_livre.pdf", contentType: "application/pdf" })).toEqual({
      bucketName: "books",
      objectName: "1700000000000_mon_livre.pdf",
      contentType: "application/pdf",
      cacheControl: "3600",
    });
    expect(uploadMetadata({ bucket: "course-content", objectName: "c1/2_a.mp4", contentType: "video/mp4", cacheControl: "60" }).cacheControl).toBe("60");
  });
  it("takes the browser's content type, else the extension's", () => {
    expect(contentTypeOf({ name: "a.pdf", type: "application/pdf" })).toBe("application/pdf");
    expect(contentTypeOf({ name: "Leçon.DOCX", type: "" })).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    expect(contentTypeOf({ name: "clip.mov", type: "" })).toBe("video/quicktime");
    expect(contentTypeOf({ name: "notes", type: "" })).toBe("application/octet-stream");
    expect(contentTypeOf({ name: "x.unknown", type: "" })).toBe("application/octet-stream");
  });
});

function previous(objectName: string, creationTime: string, bucketName = "course-content", uploadUrl: string | null = "http://h/storage/v1/upload/resumable/abc"): PreviousUpload {
  return { size: 10, metadata: { bucketName, objectName, contentType: "application/pdf", cacheControl: "3600" }, creationTime, urlStorageKey: `tus::fp::${objectName}`, uploadUrl, parallelUploadUrls: null };
}

describe("previousUploadFor", () => {
  const target = { bucket: "course-content", objectName: "c1/1700000009999_mon_fichier.pdf", contentType: "application/pdf" };
  it("resumes the latest unfinished upload of the same name in the same folder", () => {
    const older = previous("c1/1700000000001_mon_fichier.pdf", "2026-11-23T10:00:00.000Z");
    const newer = previous("c1/1700000000002_mon_fichier.pdf", "2026-11-23T11:00:00.000Z");
    expect(previousUploadFor([older, newer], target)).toBe(newer);
  });
  it("leaves uploads of another bucket, folder or name alone", () => {
    expect(previousUploadFor([previous("c1/1_mon_fichier.pdf", "2026-11-23T10:00:00Z", "books")], target)).toBeNull();
    expect(previousUploadFor([previous("c2/1_mon_fichier.pdf", "2026-11-23T10:00:00Z")], target)).toBeNull();
    expect(previousUploadFor([previous("c1/1_autre.pdf", "2026-11-23T10:00:00Z")], target)).toBeNull();
    expect(previousUploadFor([previous("c1/sub/1_mon_fichier.pdf", "2026-11-23T10:00:00Z")], target)).toBeNull();
    expect(previousUploadFor([previous("c1/1_mon_fichier.pdf", "2026-11-23T10:00:00Z", "course-content", null)], target)).toBeNull();
    expect(previousUploadFor([], target)).toBeNull();
  });
  it("matches books at the bucket's root", () => {
    const book = { bucket: "books", objectName: "1700000009999_mon_livre.pdf", contentType: "application/pdf" };
    const found = previous("1700000000001_mon_livre.pdf", "2026-11-23T10:00:00Z", "books");
    expect(previousUploadFor([found], book)).toBe(found);
  });
});

function request(): HttpRequest {
  return {
    getMethod: () => "PATCH",
    getURL: () => "http://h/storage/v1/upload/resumable/abc",
    setHeader: () => undefined,
    getHeader: () => undefined,
    setProgressHandler: () => undefined,
    send: () => Promise.reject(new Error("not sent")),
    abort: () => Promise.resolve(),
    getUnderlyingObject: () => null,
  };
}

function response(status: number, body: string): HttpResponse {
  return { getStatus: () => status, getHeader: () => undefined, getBody: () => body, getUnderlyingObject: () => null };
}

// tus-js-client's typings leave out the constructor its errors are built with.
const TusError = DetailedError as unknown as new (message: string, cause: Error | null, req: HttpRequest, res: HttpResponse | null) => DetailedError;

describe("uploadErrorReason", () => {
  it("says the server's answer, as text or in a JSON body, in French", () => {
    expect(uploadErrorReason(new TusError("tus: unexpected response while creating upload", null, request(), response(403, "new row violates row-level security policy")))).toBe(
      "action refusée : vous n'avez pas les droits nécessaires.",
    );
    expect(uploadErrorReason(new TusError("tus: unexpected response", null, request(), response(413, '{"statusCode":"413","error":"Payload too large","message":"The object exceeded the maximum allowed size"}')))).toBe(
      "le fichier dépasse la taille maximale autorisée.",
    );
    expect(uploadErrorReason(new TusError("tus: unexpected response", null, request(), response(500, "")))).toBe("le serveur a rencontré une erreur : réessayez plus tard.");
    expect(uploadErrorReason(new TusError("tus: unexpected response", null, request(), response(400, "{not json")))).toBe("le serveur a refusé l'envoi (erreur HTTP 400)");
  });
  it("says the connection was lost when no answer came", () => {
    expect(uploadErrorReason(new TusError("tus: failed to upload chunk", new Error("network"), request(), null))).toBe(CONNECTION_LOST_MESSAGE);
  });
  it("falls back to the error's message", () => {
    expect(uploadErrorReason(new Error("Délai dépassé"))).toBe("délai dépassé");
    expect(uploadErrorReason(new Error("boom"))).toBe("erreur inconnue");
    expect(uploadErrorReason(null)).toBe("erreur inconnue");
  });
});

describe("cancellation", () => {
  it("is told apart from failures", () => {
    expect(isCancelledUpload(new ResumableUploadError(CANCELLED_MESSAGE, { cancelled: true }))).toBe(true);
    expect(isCancelledUpload(new ResumableUploadError("Maximum size exceeded", { status: 413 }))).toBe(false);
    expect(isCancelledUpload(new Error(CANCELLED_MESSAGE))).toBe(false);
  });
});
