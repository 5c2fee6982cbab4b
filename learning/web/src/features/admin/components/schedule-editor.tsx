import * as React from "react";
import { toast } from "sonner";
import { CheckCircle2Icon, Loader2Icon, LockIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Badge } from "@/components/ui/badge";
import { FormField } from "@/components/form-field";
import { useSaveSchedule, useSchedule, useSchedulePreview } from "@/features/admin/hooks/use-schedule";
import {
  parseWholeNumber,
  PREVIEW_DAYS_MAX,
  previewSentence,
  SCHEDULE_BOUNDS,
  SCHEDULE_DEFAULTS,
  scheduleSummary,
  toInput,
  validateSchedule,
  type ScheduleField,
  type ScheduleInput,
} from "@/features/admin/lib/schedule";
import { errorText } from "@/features/admin/lib/errors";
import type { CourseContent, UnlockSchedule } from "@/types/db";

const FIELDS: Array<{ key: ScheduleField; label: string }> = [
  { key: "unlock_interval_days", label: "Intervalle de déblocage (jours)" },
  { key: "lessons_per_unlock", label: "Leçons par déblocage" },
  { key: "start_delay_days", label: "Délai avant le premier déblocage (jours)" },
];

function hint(key: ScheduleField): string {
  const { min, max } = SCHEDULE_BOUNDS[key];
  return `Entre ${min} et ${max}`;
}

/** Edits the course's unlock schedule (created if absent, else updated) with the server's preview. */
export function ScheduleEditor({ courseId, items }: { courseId: string; items: CourseContent[] }) {
  const schedule = useSchedule(courseId);
  if (schedule.isPending) return <p className="text-muted-foreground text-sm" role="status">Chargement du programme...</p>;
  // A schedule that cannot be read is edited from the defaults, as a course without one.
  return <ScheduleForm key={courseId} courseId={courseId} items={items} saved={schedule.data ?? null} />;
}

/** The form starts from the saved schedule (or the defaults) and keeps its values after a save. */
function ScheduleForm({ courseId, items, saved }: { courseId: string; items: CourseContent[]; saved: UnlockSchedule | null }) {
  const [input, setInput] = React.useState<ScheduleInput>(() => toInput(saved ?? SCHEDULE_DEFAULTS));
  const [errors, setErrors] = React.useState<Partial<Record<ScheduleField, string>>>({});
  const [daysText, setDaysText] = React.useState("0");
  const save = useSaveSchedule(courseId);
  const exists = saved !== null;
  const busy = save.isPending;

  const check = validateSchedule(input);
  const parsedDays = parseWholeNumber(daysText);
  const daysError = parsedDays === null || parsedDays < 0 || parsedDays > PREVIEW_DAYS_MAX ? `Entre 0 et ${PREVIEW_DAYS_MAX} jours.` : undefined;
  const previewArgs = check.ok && !daysError ? { values: check.values, days: parsedDays! } : null;
  const preview = useSchedulePreview(courseId, items.length, previewArgs);
  const unlocked = previewArgs ? preview.data : undefined;

  const change = (key: ScheduleField, value: string) => {
    setInput((v) => ({ ...v, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined }));
  };

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!check.ok) {
      setErrors(check.errors);
      return;
    }
    try {
      await save.mutateAsync(check.values);
      setInput(toInput(check.values));
      toast.success("Programme de déblocage enregistré", { description: `${scheduleSummary(check.values)}.` });
    } catch (error) {
      toast.error("Erreur", { description: errorText(error, "Impossible de sauvegarder le programme de déblocage.") });
    }
  };

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <form className="grid content-start gap-4" onSubmit={submit} noValidate aria-label="Programme de déblocage">
        <p className="text-muted-foreground text-sm">
          {exists
            ? "Ce cours a un programme de déblocage actif : les leçons s'ouvrent une à une à partir de l'accès de chaque apprenant."
            : "Aucun programme pour ce cours : un apprenant qui a accès au cours voit toutes les leçons dès l'accès."}
        </p>
        {FIELDS.map((f) => (
          <FormField key={f.key} id={`schedule-${f.key}`} label={f.label} hint={hint(f.key)} error={errors[f.key]}>
            <Input
              id={`schedule-${f.key}`}
              type="number"
              inputMode="numeric"
              min={SCHEDULE_BOUNDS[f.key].min}
              max={SCHEDULE_BOUNDS[f.key].max}
              step={1}
              value={input[f.key]}
              onChange={(e) => change(f.key, e.target.value)}
              aria-invalid={errors[f.key] ? true : undefined}
              aria-describedby={errors[f.key] ? `schedule-${f.key}-error` : undefined}
            />
          </FormField>
        ))}
        {check.ok && <p className="text-sm font-medium" data-testid="schedule-summary">{scheduleSummary(check.values)}</p>}
        <div>
          <Button type="submit" disabled={busy}>
            {busy && <Loader2Icon className="animate-spin" aria-hidden />} {exists ? "Mettre à jour le programme" : "Créer le programme"}
          </Button>
        </div>
      </form>
      <section className="grid content-start gap-3 rounded-xl border p-4" aria-labelledby="schedule-preview-title">
        <h3 id="schedule-preview-title" className="font-semibold">Aperçu</h3>
        <FormField id="schedule-preview-days" label="Accès accordé il y a (jours)" error={daysError}>
          <Input id="schedule-preview-days" type="number" inputMode="numeric" min={0} max={PREVIEW_DAYS_MAX} step={1} value={daysText} onChange={(e) => setDaysText(e.target.value)} aria-invalid={daysError ? true : undefined} />
        </FormField>
        <p className="text-sm" data-testid="schedule-preview" aria-live="polite">
          {!previewArgs
            ? "Corrigez les valeurs pour voir l'aperçu."
            : preview.isError
              ? "Impossible de calculer l'aperçu."
              : unlocked === undefined
                ? "Calcul de l'aperçu..."
                : previewSentence(previewArgs.days, unlocked, items.length)}
        </p>
        <ol className="grid gap-1 text-sm">
          {items.map((item, i) => {
            const open = unlocked !== undefined && i < unlocked;
            return (
              <li key={item.id} className="flex min-w-0 items-center gap-2">
                {open ? <CheckCircle2Icon className="size-4 shrink-0 text-emerald-600" aria-hidden /> : <LockIcon className="text-muted-foreground size-4 shrink-0" aria-hidden />}
                <span className={open ? "min-w-0 truncate" : "text-muted-foreground min-w-0 truncate"}>
                  {i + 1}. {item.title}
                </span>
                {open && <Badge variant="success">Débloquée</Badge>}
              </li>
            );
          })}
        </ol>
      </section>
    </div>
  );
}
