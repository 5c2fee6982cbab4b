import { toast } from "sonner";

/** Starts a browser download of a URL (signed URLs carry their own file name). */
export function startDownload(url: string, fileName?: string): void {
  const a = document.createElement("a");
  a.href = url;
  if (fileName) a.download = fileName;
  a.rel = "noopener";
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/** A download that did not save anything; its message is the French reason. */
export class DownloadError extends Error {
  readonly status: number | null;
  constructor(message: string, status: number | null = null, options?: ErrorOptions) {
    super(message, options);
    this.name = "DownloadError";
    this.status = status;
  }
}

/** Why the storage answered `status` instead of the file, in French. */
export function downloadFailureReason(status: number): string {
  if (status === 404 || status === 400) return "Le fichier est introuvable sur le serveur.";
  if (status === 401 || status === 403) return "Vous n'avez pas accès à ce fichier.";
  return `Le serveur n'a pas envoyé le fichier (erreur ${status}).`;
}

/**
 * Fetches the file, then saves it under `fileName`: it resolves only once the whole file is
 * in hand and handed to the browser's save, and rejects with a DownloadError otherwise. A bare
 * link to a missing or refused object "starts" a download that saves nothing; this one tells.
 */
export async function saveFile(url: string, fileName: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (error) {
    throw new DownloadError("Connexion au serveur impossible : vérifiez votre connexion puis réessayez.", null, { cause: error });
  }
  if (!res.ok) throw new DownloadError(downloadFailureReason(res.status), res.status);
  let blob: Blob;
  try {
    blob = await res.blob();
  } catch (error) {
    throw new DownloadError("Le téléchargement a été interrompu : réessayez.", null, { cause: error });
  }
  const objectUrl = URL.createObjectURL(blob);
  try {
    startDownload(objectUrl, fileName);
  } finally {
    // The click has handed the blob to the browser; the URL can go once it has read it.
    window.setTimeout(() => URL.revokeObjectURL(objectUrl), 60_000);
  }
}

/**
 * saveFile under one toast that follows it: in progress, then saved or failed with the French
 * reason. `url` is asked for inside, so a refused signing is a failed download too.
 */
export async function saveFileWithToast(url: () => Promise<string>, fileName: string, failure: string): Promise<boolean> {
  const id = toast.loading("Téléchargement en cours", { description: fileName });
  try {
    await saveFile(await url(), fileName);
    toast.success("Téléchargement terminé", { id, description: `${fileName} est enregistré.` });
    return true;
  } catch (e) {
    toast.error("Échec du téléchargement", { id, description: e instanceof Error && e.message ? e.message : failure });
    return false;
  }
}

/**
 * The saved file's name: the lesson's title with the stored file's extension; characters no
 * file system takes (the ':' of "Fiche : les nombres") become dashes.
 */
export function downloadName(title: string, filePath: string): string {
  const ext = extensionOf(filePath.split("/").pop() ?? "");
  const base = title.replace(/[\\/:*?"<>|]+/g, "-").replace(/\s+/g, " ").trim() || "contenu";
  return ext && !base.toLowerCase().endsWith(`.${ext}`) ? `${base}.${ext}` : base;
}

function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : "";
}
