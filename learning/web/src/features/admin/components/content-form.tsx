import * as React from "react";
import { toast } from "sonner";
import { FileVideoIcon, Loader2Icon, UploadIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { NativeSelect } from "@/components/ui/native-select";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { FormField, fieldAria } from "@/components/form-field";
import { FileInput } from "@/components/file-input";
import { UploadProgressPanel } from "@/components/upload-progress";
import { isCancelledUpload } from "@/lib/resumable-upload";
import { useUploadTask } from "@/lib/use-upload-task";
import { useAddContent } from "@/features/admin/hooks/use-content-writes";
import { isFileType } from "@/types/db";
import { chooseFile, videoFileRefusal } from "@/features/admin/lib/content-file";
import { checkVideoEmbed, EMBED_HOST_NAME, EMBED_MESSAGES } from "@/features/admin/lib/video-embed";
import { errorText } from "@/features/admin/lib/errors";
import { tooLong } from "@/lib/text-limits";
import type { CourseContent } from "@/types/db";

type UploadMode = "file" | "embed";
const TYPES = [
  ["video", "Vidéo"],
  ["document", "Document"],
  ["image", "Image"],
  ["audio", "Audio"],
  ["other", "Autre"],
] as const;

interface Errors {
  title?: string;
  description?: string;
  type?: string;
  file?: string;
  embed?: string;
}

/** Adds a lesson by file (type from the extension, title from the name) or video embed. */
export function ContentForm({ courseId, existing }: { courseId: string; existing: CourseContent[] }) {
  const add = useAddContent(courseId);
  const [title, setTitle] = React.useState("");
  const [description, setDescription] = React.useState("");
  const [fileType, setFileType] = React.useState("");
  const [mode, setMode] = React.useState<UploadMode>("file");
  const [busy, setBusy] = React.useState(false);
  const [file, setFile] = React.useState<File | null>(null);
  const [embed, setEmbed] = React.useState("");
  const [errors, setErrors] = React.useState<Errors>({});
  // A picked file the form does not take (a video), said until another choice is made.
  const [refusal, setRefusal] = React.useState<string | null>(null);
  // The last attempt's failure, kept in the form (the toast goes away): why, and that it was cancelled.
  const [failure, setFailure] = React.useState<{ message: string; cancelled: boolean } | null>(null);
  const task = useUploadTask();

  const chooseType = (type: string) => {
    setFileType(type);
    // Choosing the video type forces embed mode.
    if (type === "video") {
      setMode("embed");
      setRefusal(null);
    }
  };

  const switchMode = (value: UploadMode) => {
    setMode(value);
    setRefusal(null);
    // An embed is a video; a file gets its type from its extension.
    if (value === "embed") setFileType("video");
    else if (fileType === "video") setFileType("");
  };

  const pickFile = (f: File | null) => {
    const previous = file?.name ?? null;
    // A video file is refused there and then: the form stays on the file, nothing is kept.
    const refused = f && videoFileRefusal(f);
    setRefusal(refused || null);
    if (refused) return;
    setFile(f);
    if (!f) return;
    setErrors(({ file: _picked, ...rest }) => rest);
    const next = chooseFile({ title, fileType }, f.name, previous);
    setTitle(next.title);
    chooseType(next.fileType);
  };

  const validate = (): { ok: boolean; embedUrl: string | null } => {
    const next: Errors = {};
    if (title.trim().length < 3) next.title = "Le titre doit contenir au moins 3 caractères";
    else if (tooLong("contentTitle", title)) next.title = tooLong("contentTitle", title);
    if (tooLong("contentDescription", description)) next.description = tooLong("contentDescription", description);
    if (!fileType) next.type = "Veuillez sélectionner un type de fichier";
    let embedUrl: string | null = null;
    if (fileType === "video") {
      const check = checkVideoEmbed(embed);
      // What is stored is the normalised URL: the bound applies to it.
      if (check.ok && tooLong("contentEmbed", check.url)) next.embed = tooLong("contentEmbed", check.url);
      else if (check.ok) embedUrl = check.url;
      else {
        next.embed = check.message;
        toast.error(embed.trim() ? EMBED_MESSAGES.invalidToast : EMBED_MESSAGES.missing);
      }
    } else if (fileType && !file) next.file = "Veuillez sélectionner un fichier.";
    setErrors(next);
    return { ok: Object.keys(next).length === 0, embedUrl };
  };

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const { ok, embedUrl } = validate();
    if (!ok || !isFileType(fileType)) return;
    setFailure(null);
    // A file's progress is the bytes the server has been sent (an embed has nothing to send).
    const upload = fileType === "video" ? null : file;
    const progress = upload ? task.start(upload.size) : undefined;
    setBusy(true);
    try {
      await add.mutateAsync({ input: { title, description, fileType, file: upload, embedUrl }, existing, progress });
      task.finish(true);
      toast.success("Contenu ajouté", { description: title.trim() });
      setTitle("");
      setDescription("");
      setFile(null);
      setEmbed("");
      // The next file brings its own type; an embed stays a video.
      if (upload) setFileType("");
    } catch (error) {
      task.finish(false);
      // The fields keep their values: submitting again retries (an interrupted upload resumes).
      if (isCancelledUpload(error)) {
        setFailure({ message: "Téléversement annulé : le contenu n'a pas été ajouté. Vous pouvez le relancer.", cancelled: true });
        toast("Téléversement annulé", { description: title.trim() });
      } else {
        const message = errorText(error, fileType === "video" ? "Impossible d'ajouter la vidéo." : "Impossible d'ajouter le contenu.");
        setFailure({ message, cancelled: false });
        toast.error("Erreur", { description: message });
      }
    } finally {
      setBusy(false);
    }
  };
  // The database's bounds on the texts are said while typing, the other rules when the form is sent.
  const titleError = tooLong("contentTitle", title) ?? errors.title;
  const descriptionError = tooLong("contentDescription", description);
  return (
    <form className="grid gap-4" onSubmit={submit} noValidate>
      <fieldset className="grid gap-2">
        <legend className="mb-2 text-sm font-medium">Mode d'ajout</legend>
        <div className="flex flex-wrap gap-4 text-sm">
          {(
            [
              ["file", "Téléverser un fichier"],
              ["embed", "Vidéo intégrée (embed)"],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="flex items-center gap-2">
              <input
                type="radio"
                name="upload-mode"
                value={value}
                checked={mode === value}
                onChange={() => switchMode(value)}
              />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
      {mode === "file" ? (
        <div className="grid gap-2">
          <FormField id="content-file" label="Fichier" error={errors.file} hint={refusal ? undefined : "Le type est détecté d'après l'extension. Les vidéos s'ajoutent en «\u00a0Vidéo intégrée (embed)\u00a0»."}>
            <FileInput id="content-file" file={file} onFile={pickFile} aria-invalid={!!errors.file || !!refusal} disabled={busy} />
          </FormField>
          {refusal && (
            <Alert variant="warning" data-testid="content-file-refused">
              <FileVideoIcon aria-hidden />
              <AlertTitle>Fichier refusé</AlertTitle>
              <AlertDescription>
                <p>{refusal}</p>
                <Button type="button" size="sm" variant="outline" className="mt-2" onClick={() => switchMode("embed")}>
                  Ajouter une vidéo intégrée
                </Button>
              </AlertDescription>
            </Alert>
          )}
        </div>
      ) : (
        <FormField
          id="content-embed"
          label={`URL ou code embed (${EMBED_HOST_NAME})`}
          error={errors.embed}
          hint="Les liens YouTube (youtube.com/watch, youtu.be, shorts) sont convertis en lien d'intégration."
        >
          <Textarea id="content-embed" rows={3} value={embed} onChange={(e) => setEmbed(e.target.value)} placeholder="https://iframe.mediadelivery.net/embed/... ou https://www.youtube.com/watch?v=..." {...fieldAria("content-embed", errors.embed)} />
        </FormField>
      )}
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField id="content-title" label="Titre du contenu" error={titleError}>
          <Input id="content-title" value={title} onChange={(e) => setTitle(e.target.value)} {...fieldAria("content-title", titleError)} />
        </FormField>
        <FormField id="content-type" label="Type de fichier" error={errors.type}>
          <NativeSelect id="content-type" value={fileType} onChange={(e) => chooseType(e.target.value)} aria-invalid={!!errors.type}>
            <option value="">Choisir un type</option>
            {TYPES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </NativeSelect>
        </FormField>
      </div>
      <FormField id="content-description" label="Description (optionnelle)" error={descriptionError}>
        <Textarea id="content-description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} {...fieldAria("content-description", descriptionError)} />
      </FormField>
      {task.state && <UploadProgressPanel state={task.state} fileName={file?.name} onCancel={task.cancel} />}
      {failure && (
        <Alert variant={failure.cancelled ? "warning" : "destructive"} data-testid="content-upload-failure">
          <AlertDescription>{failure.message}</AlertDescription>
        </Alert>
      )}
      <div>
        <Button type="submit" disabled={busy}>
          {busy ? <Loader2Icon className="animate-spin" aria-hidden /> : <UploadIcon aria-hidden />} Ajouter le contenu
        </Button>
      </div>
    </form>
  );
}
