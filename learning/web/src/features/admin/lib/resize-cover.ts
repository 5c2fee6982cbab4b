import { COVER_JPEG_QUALITY, coverSize } from "@/features/admin/lib/cover-size";

/** Draws the image at most 300 px wide on a white background and exports a JPEG (0.9). */
export async function resizeCover(file: Blob): Promise<Blob> {
  const bitmap = await createImageBitmap(file);
  try {
    const { width, height } = coverSize(bitmap.width, bitmap.height);
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const ctx = canvas.getContext("2d");
    if (!ctx) throw new Error("canvas unavailable");
    // Transparent areas (PNG, WebP) turn white rather than black in the JPEG.
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, width, height);
    ctx.drawImage(bitmap, 0, 0, width, height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("image compression failed"))), "image/jpeg", COVER_JPEG_QUALITY),
    );
  } finally {
    bitmap.close();
  }
}
