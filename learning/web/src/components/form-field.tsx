import type { ReactNode } from "react";
import { Label } from "@/components/ui/label";

/** Label, control and the field's error message, linked for screen readers. */
export function FormField({ id, label, error, hint, children }: { id: string; label: ReactNode; error?: string; hint?: ReactNode; children: ReactNode }) {
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint && !error && <p className="text-muted-foreground text-xs">{hint}</p>}
      {error && (
        <p id={`${id}-error`} className="text-destructive text-sm" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The control's side of the link: invalid, and described by the message FormField shows. */
export function fieldAria(id: string, error: string | undefined): { "aria-invalid": boolean; "aria-describedby": string | undefined } {
  return { "aria-invalid": !!error, "aria-describedby": error ? `${id}-error` : undefined };
}
