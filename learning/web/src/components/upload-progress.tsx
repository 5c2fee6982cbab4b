import { XIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Progress } from "@/components/ui/progress";
import { formatFileSize } from "@/lib/format";
import type { UploadTaskState } from "@/lib/use-upload-task";

/**
 * A running upload: the file, the percent and bytes sent of the total, the bar, what it is
 * doing when it is not just sending (retrying, finishing) and a button to cancel it.
 */
export function UploadProgressPanel({ state, fileName, onCancel }: { state: UploadTaskState; fileName?: string; onCancel?: () => void }) {
  const { bytesSent, bytesTotal, percent } = state.progress;
  const retry = state.retrying ? state.retry : null;
  const status = state.done
    ? "Terminé"
    : retry
      ? `Envoi interrompu, nouvelle tentative ${retry.attempt} sur ${retry.attempts}…`
      : state.retrying
        ? "Connexion interrompue, nouvelle tentative…"
        : percent >= 100
          ? "Finalisation..."
          : "Envoi en cours";
  return (
    <div className="bg-muted/40 grid min-w-0 grid-cols-1 gap-2 rounded-md border p-3" data-testid="upload-progress" data-percent={percent}>
      <div className="flex items-baseline justify-between gap-3 text-sm">
        <span className="min-w-0 truncate font-medium" id="upload-progress-label">
          Téléversement{fileName ? ` de ${fileName}` : ""}
        </span>
        <span className="shrink-0 font-semibold tabular-nums">{percent} %</span>
      </div>
      <Progress value={percent} aria-labelledby="upload-progress-label" getValueLabel={(value) => `${value} %`} />
      <div className="flex min-h-8 flex-wrap items-center justify-between gap-x-3 gap-y-2">
        <p className="text-muted-foreground text-xs">
          <span className="tabular-nums" data-testid="upload-bytes">
            {formatFileSize(bytesSent)} / {formatFileSize(bytesTotal)}
          </span>
          {" · "}
          <span role="status" aria-live="polite" data-testid="upload-status" className={state.retrying ? "font-medium text-amber-700 dark:text-amber-400" : undefined}>
            {status}
          </span>
        </p>
        {onCancel && !state.done && percent < 100 && (
          <Button type="button" variant="outline" size="sm" onClick={onCancel}>
            <XIcon aria-hidden /> Annuler le téléversement
          </Button>
        )}
      </div>
    </div>
  );
}
