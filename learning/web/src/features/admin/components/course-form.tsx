import * as React from "react";
import { toast } from "sonner";
import { Loader2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { NativeSelect } from "@/components/ui/native-select";
import { FormField, fieldAria } from "@/components/form-field";
import { FileInput } from "@/components/file-input";
import { useSaveCourse } from "@/features/admin/hooks/use-courses";
import { errorText } from "@/features/admin/lib/errors";
import { tooLong } from "@/lib/text-limits";
import type { Course, Visibility } from "@/types/db";

export const TITLE_MIN = 3;
export const COURSE_TITLE_ERROR = "Le titre doit contenir au moins 3 caractères";

/** Create (no course) or edit a course: title >= 3, description, visibility, optional cover. */
export function CourseForm({ course, idPrefix = "course" }: { course?: Course; idPrefix?: string }) {
  const [title, setTitle] = React.useState(course?.title ?? "");
  const [description, setDescription] = React.useState(course?.description ?? "");
  const [visibility, setVisibility] = React.useState<Visibility>(course?.visibility ?? "public");
  const [cover, setCover] = React.useState<File | null>(null);
  const [error, setError] = React.useState<string | undefined>();
  const [coverError, setCoverError] = React.useState<string | undefined>();
  const save = useSaveCourse(course);
  const busy = save.isPending;

  // The database's bounds, said while typing.
  const titleTooLong = tooLong("courseTitle", title);
  const descriptionTooLong = tooLong("courseDescription", description);
  const titleError = error ?? titleTooLong;

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (title.trim().length < TITLE_MIN) {
      setError(COURSE_TITLE_ERROR);
      return;
    }
    setError(undefined);
    if (titleTooLong || descriptionTooLong) return;
    try {
      const result = await save.mutateAsync({ title, description, visibility, cover });
      if (result.coverFailed) toast.warning("Impossible de télécharger l'image de couverture, mais le cours sera créé.");
      toast.success(course ? "Cours mis à jour" : "Cours créé", { description: result.course.title });
      if (!course) {
        setTitle("");
        setDescription("");
        setVisibility("public");
      }
      setCover(null);
    } catch (err) {
      toast.error("Erreur", { description: errorText(err, course ? "Impossible de mettre à jour le cours." : "Impossible de créer le cours.") });
    }
  };

  const id = (name: string) => `${idPrefix}-${name}`;
  return (
    <form className="grid gap-4" onSubmit={submit} noValidate>
      <FormField id={id("title")} label="Titre" error={titleError}>
        <Input id={id("title")} value={title} onChange={(e) => setTitle(e.target.value)} {...fieldAria(id("title"), titleError)} />
      </FormField>
      <FormField id={id("description")} label="Description (optionnelle)" error={descriptionTooLong}>
        <Textarea id={id("description")} rows={3} value={description} onChange={(e) => setDescription(e.target.value)} {...fieldAria(id("description"), descriptionTooLong)} />
      </FormField>
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField id={id("visibility")} label="Visibilité">
          <NativeSelect id={id("visibility")} value={visibility} onChange={(e) => setVisibility(e.target.value as Visibility)}>
            <option value="public">Public</option>
            <option value="private">Privé</option>
          </NativeSelect>
        </FormField>
        <FormField id={id("cover")} label="Image de couverture (optionnelle)" hint="Format conseillé 16:9 ; réduite à 300 px de large." error={coverError}>
          <FileInput
            id={id("cover")}
            accept="image/*"
            file={cover}
            aria-invalid={!!coverError}
            onFile={(file) => {
              if (file && !file.type.startsWith("image/")) {
                setCoverError("Seuls les fichiers image sont acceptés pour la couverture");
                setCover(null);
                return;
              }
              setCoverError(undefined);
              setCover(file);
            }}
          />
        </FormField>
      </div>
      <div>
        <Button type="submit" disabled={busy}>
          {busy && <Loader2Icon className="animate-spin" aria-hidden />} {course ? "Enregistrer les modifications" : "Créer le cours"}
        </Button>
      </div>
    </form>
  );
}
