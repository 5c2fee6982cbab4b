import * as React from "react";
import { Navigate } from "react-router-dom";
import { Loader2Icon, UsersIcon } from "lucide-react";
import { Input } from "@/components/ui/input";
import { ErrorPanel, PageContainer, PageSpinner } from "@/components/layout/page-states";
import { ProfileErrorPanel } from "@/components/profile-error-panel";
import { useAuth } from "@/features/auth";
import { type Peer, Conversation, useDesignatedAdmin, useLearners, useUnreadBySender, unreadLabel, withUnreadFirst } from "@/features/messages";
import { useDocumentTitle } from "@/lib/use-document-title";
import { useErrorToast } from "@/lib/use-error-toast";
import { cn } from "@/lib/utils";

export default function Messages() {
  useDocumentTitle("Messages");
  const { loading, user, isAdmin, profile, profileError, refreshProfile } = useAuth();
  if (profileError) return <ProfileErrorPanel onRetry={refreshProfile} />;
  if (loading || (user && !profile)) return <PageSpinner />;
  if (!user) return <Navigate to="/connexion" replace state={{ error: "Connectez-vous pour accéder à vos messages." }} />;
  return (
    <PageContainer className="max-w-5xl">
      <h1 className="mb-6 text-3xl font-bold tracking-tight">Messages</h1>
      {isAdmin ? <AdminInbox userId={user.id} /> : <LearnerInbox userId={user.id} />}
    </PageContainer>
  );
}

function LearnerInbox({ userId }: { userId: string }) {
  const query = useDesignatedAdmin();
  useErrorToast(query.error, "Impossible de charger les utilisateurs.");
  // undefined while loading; null when none is designated or the read failed.
  const admin = query.isError ? null : query.data;
  if (admin === undefined) return <PageSpinner label="Chargement de la conversation..." />;
  if (!admin) return <ErrorPanel title="Messagerie indisponible" description="Aucun administrateur n'est disponible pour le moment." />;
  return (
    <div className="space-y-3">
      <p className="text-muted-foreground text-sm">Posez vos questions à votre professeur : il vous répondra ici.</p>
      <Conversation userId={userId} peer={admin} viewerIsAdmin={false} />
    </div>
  );
}

function AdminInbox({ userId }: { userId: string }) {
  const query = useLearners();
  useErrorToast(query.error, "Impossible de charger les utilisateurs.");
  // null while loading; a failed read lists nobody.
  const users = query.isError ? [] : (query.data ?? null);
  const [selected, setSelected] = React.useState<Peer | null>(null);
  const [search, setSearch] = React.useState("");
  const unread = useUnreadBySender(userId);
  const conversationRef = React.useRef<HTMLDivElement>(null);
  const filtered = withUnreadFirst(
    (users ?? []).filter((u) => `${u.full_name ?? ""} ${u.email ?? ""}`.toLowerCase().includes(search.trim().toLowerCase())),
    unread,
  );
  const open = (u: Peer) => {
    setSelected(u);
    // On a phone the conversation is below the list: bring it into view.
    window.requestAnimationFrame(() => conversationRef.current?.scrollIntoView({ block: "nearest" }));
  };
  return (
    <div className="grid gap-4 md:grid-cols-[280px_1fr]">
      <aside className="bg-card flex flex-col rounded-xl border">
        <div className="border-b p-3">
          <Input value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Rechercher un utilisateur..." aria-label="Rechercher un utilisateur" />
        </div>
        <ul className="max-h-[460px] overflow-y-auto p-2">
          {users === null && (
            <li className="text-muted-foreground flex items-center gap-2 p-2 text-sm">
              <Loader2Icon className="size-4 animate-spin" aria-hidden /> Chargement...
            </li>
          )}
          {users && filtered.length === 0 && <li className="text-muted-foreground p-2 text-sm">Aucun utilisateur trouvé</li>}
          {filtered.map((u) => {
            const count = unread.get(u.id) ?? 0;
            const current = selected?.id === u.id;
            return (
              <li key={u.id} data-testid="conversation" data-email={u.email ?? ""}>
                <button
                  type="button"
                  onClick={() => open(u)}
                  aria-current={current || undefined}
                  className={cn("flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm transition-colors", current ? "bg-primary text-primary-foreground" : "hover:bg-accent")}
                >
                  <span className="flex min-w-0 flex-1 flex-col">
                    <span className={cn("truncate", count > 0 ? "font-semibold" : "font-medium")}>{u.full_name || "Sans nom"}</span>
                    <span className={cn("truncate text-xs", current ? "opacity-80" : "text-muted-foreground")}>{u.email}</span>
                  </span>
                  {count > 0 && (
                    <span
                      className={cn("flex h-5 min-w-5 shrink-0 items-center justify-center rounded-full px-1.5 text-xs font-semibold", current ? "bg-primary-foreground text-primary" : "bg-destructive text-white")}
                      data-testid="conversation-unread"
                      aria-label={unreadLabel(count)}
                      title={unreadLabel(count)}
                    >
                      {count}
                    </span>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      </aside>
      <div ref={conversationRef} className="min-w-0 scroll-mt-20">
        {selected ? (
          <Conversation userId={userId} peer={selected} viewerIsAdmin />
        ) : (
          <div className="text-muted-foreground flex min-h-[300px] flex-col items-center justify-center gap-2 rounded-xl border border-dashed p-4 text-center text-sm">
            <UsersIcon className="size-8" aria-hidden /> Sélectionnez un utilisateur pour afficher la conversation.
          </div>
        )}
      </div>
    </div>
  );
}

