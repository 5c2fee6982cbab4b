import type { ReactNode } from "react";
import { AlertTriangleIcon, Loader2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";

export function PageSpinner({ label = "Chargement..." }: { label?: string }) {
  return (
    <div className="text-muted-foreground flex flex-1 items-center justify-center gap-2 py-24 text-sm" role="status">
      <Loader2Icon className="size-5 animate-spin" aria-hidden /> {label}
    </div>
  );
}

export function ErrorPanel({ title, description, action, className }: { title: string; description?: ReactNode; action?: ReactNode; className?: string }) {
  return (
    <div className={cn("mx-auto flex max-w-md flex-col items-center gap-3 rounded-xl border border-destructive/30 bg-destructive/5 px-6 py-10 text-center", className)} role="alert">
      <AlertTriangleIcon className="text-destructive size-8" aria-hidden />
      <h2 className="text-lg font-semibold">{title}</h2>
      {description && <p className="text-muted-foreground text-sm">{description}</p>}
      {action}
    </div>
  );
}

export function EmptyState({ icon, title, children }: { icon?: ReactNode; title: string; children?: ReactNode }) {
  return (
    <div className="text-muted-foreground flex flex-col items-center gap-3 rounded-xl border border-dashed px-6 py-14 text-center">
      {icon}
      <p className="text-foreground font-medium">{title}</p>
      {children}
    </div>
  );
}

export function RetryButton({ onClick, label = "Réessayer" }: { onClick: () => void; label?: string }) {
  return (
    <Button variant="outline" onClick={onClick}>
      {label}
    </Button>
  );
}

export function PageContainer({ className, children }: { className?: string; children: ReactNode }) {
  return <div className={cn("mx-auto w-full max-w-7xl px-4 py-8 sm:px-6 sm:py-10", className)}>{children}</div>;
}
