export type BookCardState = "login-required" | "restricted" | "downloadable";

export function bookCardState(signedIn: boolean, hasAccess: boolean): BookCardState {
  if (!signedIn) return "login-required";
  return hasAccess ? "downloadable" : "restricted";
}

/** Book and course covers live in the public covers bucket (books/..., courses/...), never with the PDFs. */
export const COVERS_BUCKET = "covers";

/** Covers (books/..., courses/...) come from the public covers bucket unless already a full URL. */
export function coverUrl(baseUrl: string, cover: string | null | undefined, bucket = COVERS_BUCKET): string | null {
  if (!cover) return null;
  if (/^https?:\/\//i.test(cover)) return cover;
  const path = cover.replace(/^\/+/, "").split("/").map(encodeURIComponent).join("/");
  return `${baseUrl.replace(/\/+$/, "")}/storage/v1/object/public/${bucket}/${path}`;
}
