import { CheckCircle2Icon } from "lucide-react";
import { Progress } from "@/components/ui/progress";
import { progressCounts, progressText, type CourseProgress } from "@/features/courses/lib/progress";
import { cn } from "@/lib/utils";

/**
 * A learner's progress in a course, worded the same on the course list, the course page and
 * the admin's access dialog: a bar, "2/3 leçons vues · 66 %", and "Cours terminé" once every
 * lesson of the course has been watched.
 */
export function CourseProgressLine({ progress, className }: { progress: CourseProgress; className?: string }) {
  const text = progressText(progress);
  return (
    <div className={cn("min-w-0 space-y-1", className)} data-testid="course-progress" data-percent={progress.percent} data-completed={progress.completed || undefined}>
      <Progress value={progress.percent} className="h-1.5" aria-label={`Progression : ${text}`} />
      <p className="text-muted-foreground flex flex-wrap items-center gap-x-1.5 text-xs">
        <span>
          {/* The percentage never wraps apart from its sign. */}
          {progressCounts(progress)} <span className="whitespace-nowrap">· {progress.percent} %</span>
        </span>
        {progress.completed && (
          <span className="inline-flex items-center gap-1 font-medium text-emerald-700 dark:text-emerald-400">
            <CheckCircle2Icon className="size-3.5" aria-hidden /> Cours terminé
          </span>
        )}
      </p>
    </div>
  );
}
