// Content upload helpers: type detection from the extension, the title prefilled from the
// file name, and the storage names of the spec ({courseId}/{timestamp}_{name}).
import { EMBED_HOST_NAME } from "@/features/admin/lib/video-embed";

export type DetectedType = "video" | "document" | "image";

const EXTENSIONS: Record<string, DetectedType> = {
  mp4: "video",
  mov: "video",
  avi: "video",
  webm: "video",
  pdf: "document",
  doc: "document",
  docx: "document",
  jpg: "image",
  jpeg: "image",
  png: "image",
  gif: "image",
  webp: "image",
};

export { downloadName } from "@/lib/download";

export function fileExtension(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : "";
}

/** The content type of a file from its extension; null when the extension is unknown. */
export function detectFileType(fileName: string): DetectedType | null {
  return EXTENSIONS[fileExtension(fileName)] ?? null;
}

/**
 * Why a picked file is refused, in French, or null when it is taken. Video files are: a video
 * lesson is an embed (the spec's "file_path (null for video)", "Choosing the video type forces
 * embed mode"), and the lessons bucket holds no video, so it is said when the file is picked.
 */
export function videoFileRefusal(file: { name: string; type: string }): string | null {
  if (detectFileType(file.name) !== "video" && !file.type.startsWith("video/")) return null;
  // French typography: no break inside « » nor before the colon.
  return `Les fichiers vidéo ne sont pas acceptés\u00a0: «\u00a0${file.name}\u00a0» n'a pas été ajouté. Une vidéo s'ajoute par son lien (${EMBED_HOST_NAME}), en mode «\u00a0Vidéo intégrée (embed)\u00a0».`;
}

/** "mon_cours-1.pdf" -> "mon cours 1": the title field's initial value. */
export function titleFromFileName(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  const base = dot > 0 ? fileName.slice(0, dot) : fileName;
  return base.replace(/[_-]+/g, " ").replace(/\s+/g, " ").trim();
}

/** The form fields a chosen file sets. */
export interface FileChoice {
  title: string;
  fileType: string;
}

/**
 * The title and type after choosing `fileName` in place of `previousName`: the type always
 * follows the new file (cleared when its extension is unknown, so the admin picks one), and
 * the title follows it while it is empty or still the one prefilled from the previous file.
 */
export function chooseFile(current: FileChoice, fileName: string, previousName: string | null): FileChoice {
  const prefilled = previousName !== null && current.title.trim() === titleFromFileName(previousName);
  return {
    title: !current.title.trim() || prefilled ? titleFromFileName(fileName) : current.title,
    fileType: detectFileType(fileName) ?? "",
  };
}

/** Spaces in file names become underscores. */
export function safeFileName(fileName: string): string {
  return fileName.trim().replace(/\s+/g, "_");
}

/** Stored names are prefixed with a timestamp. */
export function timestampedName(fileName: string, now: number = Date.now()): string {
  return `${now}_${safeFileName(fileName)}`;
}

export function contentObjectPath(courseId: string, fileName: string, now: number = Date.now()): string {
  return `${courseId}/${timestampedName(fileName, now)}`;
}

/** The next order_index: highest existing plus 1, or 0 for the first item. */
export function nextOrderIndex(existing: Array<{ order_index: number | null }>): number {
  const indexes = existing.map((c) => c.order_index).filter((n): n is number => typeof n === "number");
  return indexes.length ? Math.max(...indexes) + 1 : 0;
}
