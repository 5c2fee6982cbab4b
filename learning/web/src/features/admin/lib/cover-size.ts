/** Covers: at most 300 px wide, aspect ratio kept, white background, JPEG quality 0.9. */
export const COVER_MAX_WIDTH = 300;
export const COVER_JPEG_QUALITY = 0.9;

/** The drawn size of a cover: scaled down to the maximum width, never scaled up. */
export function coverSize(width: number, height: number, maxWidth: number = COVER_MAX_WIDTH): { width: number; height: number } {
  if (!(width > 0) || !(height > 0)) throw new Error("invalid image size");
  if (width <= maxWidth) return { width: Math.round(width), height: Math.round(height) };
  const scale = maxWidth / width;
  return { width: maxWidth, height: Math.max(1, Math.round(height * scale)) };
}

/** "photo de cours.png" -> "photo_de_cours.jpg": covers are always JPEGs. */
export function coverFileName(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  const base = (dot > 0 ? fileName.slice(0, dot) : fileName).trim().replace(/\s+/g, "_") || "cover";
  return `${base}.jpg`;
}
