import type { ReactNode } from "react";
import { PageContainer } from "./page-states";

export function LegalPage({ title, updated, children }: { title: string; updated: string; children: ReactNode }) {
  return (
    <PageContainer className="max-w-3xl">
      <h1 className="text-3xl font-bold tracking-tight">{title}</h1>
      <p className="text-muted-foreground mt-2 text-sm">Dernière mise à jour : {updated}</p>
      <div className="mt-8 space-y-6 leading-relaxed [&_h2]:mb-2 [&_h2]:text-xl [&_h2]:font-semibold [&_p]:text-muted-foreground">{children}</div>
    </PageContainer>
  );
}
