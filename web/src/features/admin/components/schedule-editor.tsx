import * as React from "react";
import { toast } from "sonner";
import { CheckCircle2Icon, Loader2Icon, LockIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Badge } from "@/components/ui/badge";
import { FormField } from "@/components/form-field";
import { getSchedule, saveSchedule } from "@/features/admin/api/schedule";
import { clampScheduleField, SCHEDULE_DEFAULTS, unlockedLessonCount, type ScheduleValues } from "@/features/admin/lib/schedule";
import { errorText } from "@/features/admin/lib/errors";
import type { CourseContent } from "@/types/db";

const FIELDS: Array<{ key: keyof ScheduleValues; label: string; hint: string; min: number }> = [
  { key: "unlock_interval_days", label: "Intervalle de déblocage (jours)", hint: "Minimum 1", min: 1 },
  { key: "lessons_per_unlock", label: "Leçons par déblocage", hint: "Minimum 1", min: 1 },
  { key: "start_delay_days", label: "Délai avant le premier déblocage (jours)", hint: "Minimum 0", min: 0 },
];

/** Edits the course's unlock schedule (created if absent, else updated) with a preview. */
export function ScheduleEditor({ courseId, items }: { courseId: string; items: CourseContent[] }) {
  const [values, setValues] = React.useState<Record<keyof ScheduleValues, string>>({ unlock_interval_days: "1", lessons_per_unlock: "1", start_delay_days: "0" });
  const [exists, setExists] = React.useState<boolean | null>(null);
  const [busy, setBusy] = React.useState(false);
  const [days, setDays] = React.useState("0");

  React.useEffect(() => {
    let alive = true;
    getSchedule(courseId)
      .then((s) => {
        if (!alive) return;
        setExists(!!s);
        const v = s ?? SCHEDULE_DEFAULTS;
        setValues({ unlock_interval_days: String(v.unlock_interval_days), lessons_per_unlock: String(v.lessons_per_unlock), start_delay_days: String(v.start_delay_days) });
      })
      .catch(() => alive && setExists(false));
    return () => {
      alive = false;
    };
  }, [courseId]);

  const parsed: ScheduleValues = {
    unlock_interval_days: clampScheduleField("unlock_interval_days", values.unlock_interval_days),
    lessons_per_unlock: clampScheduleField("lessons_per_unlock", values.lessons_per_unlock),
    start_delay_days: clampScheduleField("start_delay_days", values.start_delay_days),
  };
  const daysSince = Math.max(0, Number.parseInt(days, 10) || 0);
  const unlocked = Math.min(items.length, unlockedLessonCount(daysSince, parsed));

  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      await saveSchedule(courseId, parsed);
      setValues({ unlock_interval_days: String(parsed.unlock_interval_days), lessons_per_unlock: String(parsed.lessons_per_unlock), start_delay_days: String(parsed.start_delay_days) });
      setExists(true);
      toast.success("Programme de déblocage enregistré", { description: `${parsed.lessons_per_unlock} leçon(s) tous les ${parsed.unlock_interval_days} jour(s).` });
    } catch (error) {
      toast.error("Erreur", { description: errorText(error, "Impossible de sauvegarder le programme de déblocage.") });
    } finally {
      setBusy(false);
    }
  };

  if (exists === null) return <p className="text-muted-foreground text-sm" role="status">Chargement du programme...</p>;
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <form className="grid gap-4" onSubmit={save} noValidate>
        <p className="text-muted-foreground text-sm">
          {exists ? "Ce cours a un programme de déblocage actif." : "Aucun programme pour ce cours : seules les leçons accordées une à une sont débloquées."}
        </p>
        {FIELDS.map((f) => (
          <FormField key={f.key} id={`schedule-${f.key}`} label={f.label} hint={f.hint}>
            <Input id={`schedule-${f.key}`} type="number" min={f.min} step={1} value={values[f.key]} onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))} />
          </FormField>
        ))}
        <div>
          <Button type="submit" disabled={busy}>
            {busy && <Loader2Icon className="animate-spin" aria-hidden />} {exists ? "Mettre à jour le programme" : "Créer le programme"}
          </Button>
        </div>
      </form>
      <section className="grid content-start gap-3 rounded-xl border p-4" aria-labelledby="schedule-preview-title">
        <h3 id="schedule-preview-title" className="font-semibold">Aperçu</h3>
        <FormField id="schedule-preview-days" label="Accès accordé il y a (jours)">
          <Input id="schedule-preview-days" type="number" min={0} value={days} onChange={(e) => setDays(e.target.value)} />
        </FormField>
        <p className="text-sm" data-testid="schedule-preview">
          Aujourd'hui, un apprenant aurait {unlocked} leçon{unlocked > 1 ? "s" : ""} débloquée{unlocked > 1 ? "s" : ""} sur {items.length}.
        </p>
        <ol className="grid gap-1 text-sm">
          {items.map((item, i) => (
            <li key={item.id} className="flex items-center gap-2">
              {i < unlocked ? <CheckCircle2Icon className="size-4 text-emerald-600" aria-hidden /> : <LockIcon className="text-muted-foreground size-4" aria-hidden />}
              <span className={i < unlocked ? undefined : "text-muted-foreground"}>
                {i + 1}. {item.title}
              </span>
              {i < unlocked && <Badge variant="success">Débloquée</Badge>}
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
