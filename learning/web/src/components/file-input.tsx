import * as React from "react";
import { cn } from "@/lib/utils";

type FileInputProps = Omit<React.ComponentProps<"input">, "type" | "value" | "onChange" | "ref"> & {
  file: File | null;
  onFile: (file: File | null) => void;
};

/**
 * A file picker that speaks French whatever the browser's language (the native one says
 * "Choose File / No file chosen"). The parent holds the chosen file: the native input is
 * emptied after each pick, so clearing the form or picking the same file again just works.
 */
export function FileInput({ file, onFile, className, id, disabled, ...props }: FileInputProps) {
  const ref = React.useRef<HTMLInputElement>(null);
  const nameId = `${id}-name`;
  const open = (e: React.MouseEvent) => {
    if (e.target !== ref.current && !disabled) ref.current?.click();
  };
  return (
    <div
      className={cn(
        "border-input flex h-10 w-full min-w-0 cursor-pointer items-center gap-3 rounded-md border px-1.5 text-sm shadow-xs dark:bg-input/30",
        "has-[:focus-visible]:border-ring has-[:focus-visible]:ring-ring/50 has-[:focus-visible]:ring-[3px] has-[[aria-invalid=true]]:border-destructive",
        // Dimmed by its background, not by opacity: the texts keep their contrast.
        disabled && "bg-muted cursor-not-allowed dark:bg-muted",
        className,
      )}
      onClick={open}
      data-slot="file-input"
    >
      <input
        ref={ref}
        id={id}
        type="file"
        className="sr-only"
        disabled={disabled}
        aria-describedby={nameId}
        onChange={(e) => {
          onFile(e.target.files?.[0] ?? null);
          e.target.value = "";
        }}
        {...props}
      />
      <span className="bg-secondary text-secondary-foreground shrink-0 rounded px-2.5 py-1 font-medium" aria-hidden>
        Choisir un fichier
      </span>
      <span id={nameId} className={cn("min-w-0 truncate", !file && "text-muted-foreground")}>
        {file ? file.name : "Aucun fichier"}
      </span>
    </div>
  );
}
