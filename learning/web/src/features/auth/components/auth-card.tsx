import type { ReactNode } from "react";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";

export function AuthCard({ title, description, children, footer }: { title: string; description?: ReactNode; children: ReactNode; footer?: ReactNode }) {
  return (
    <div className="from-accent/50 flex flex-1 items-start justify-center bg-gradient-to-b to-transparent px-4 py-10 sm:items-center sm:py-16">
      <Card className="w-full max-w-md shadow-lg">
        <CardHeader className="text-center">
          <h1 className="text-2xl leading-tight font-bold">{title}</h1>
          {description && <CardDescription>{description}</CardDescription>}
        </CardHeader>
        <CardContent className="space-y-5">{children}</CardContent>
        {footer && <div className="text-muted-foreground border-t px-6 pt-5 text-center text-sm">{footer}</div>}
      </Card>
    </div>
  );
}
