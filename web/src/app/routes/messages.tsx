import * as React from "react";
import { Navigate } from "react-router-dom";
import { toast } from "sonner";
import { Loader2Icon, UsersIcon } from "lucide-react";
import { Input } from "@/components/ui/input";
import { ErrorPanel, PageContainer, PageSpinner } from "@/components/layout/page-states";
import { useAuth } from "@/features/auth/hooks/auth-context";
import { designatedAdmin, listNonAdminUsers, type Peer } from "@/features/messages/api/messages";
import { Conversation } from "@/features/messages/components/conversation";
import { useDocumentTitle } from "@/lib/use-document-title";
import { cn } from "@/lib/utils";

export default function Messages() {
  useDocumentTitle("Messages");
  const { loading, user, isAdmin, profile } = useAuth();
  if (loading || (user && !profile)) return <PageSpinner />;
  if (!user) return <Navigate to="/connexion" replace state={{ error: "You must be logged in to access messages" }} />;
  return (
    <PageContainer className="max-w-5xl">
      <h1 className="mb-6 text-3xl font-bold tracking-tight">Messages</h1>
      {isAdmin ? <AdminInbox userId={user.id} /> : <LearnerInbox userId={user.id} />}
    </PageContainer>
  );
}

function LearnerInbox({ userId }: { userId: string }) {
  const [admin, setAdmin] = React.useState<Peer | null | undefined>(undefined);
  React.useEffect(() => {
    designatedAdmin()
      .then(setAdmin)
      .catch(() => {
        setAdmin(null);
        toast.error("Failed to load users");
      });
  }, []);
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
  const [users, setUsers] = React.useState<Peer[] | null>(null);
  const [selected, setSelected] = React.useState<Peer | null>(null);
  const [search, setSearch] = React.useState("");
  React.useEffect(() => {
    listNonAdminUsers()
      .then(setUsers)
      .catch(() => {
        setUsers([]);
        toast.error("Failed to load users");
      });
  }, []);
  const filtered = (users ?? []).filter((u) => `${u.full_name ?? ""} ${u.email ?? ""}`.toLowerCase().includes(search.trim().toLowerCase()));
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
          {filtered.map((u) => (
            <li key={u.id}>
              <button
                type="button"
                onClick={() => setSelected(u)}
                className={cn("flex w-full flex-col rounded-md px-3 py-2 text-left text-sm transition-colors", selected?.id === u.id ? "bg-primary text-primary-foreground" : "hover:bg-accent")}
              >
                <span className="truncate font-medium">{u.full_name || "Sans nom"}</span>
                <span className={cn("truncate text-xs", selected?.id === u.id ? "opacity-80" : "text-muted-foreground")}>{u.email}</span>
              </button>
            </li>
          ))}
        </ul>
      </aside>
      {selected ? (
        <Conversation userId={userId} peer={selected} viewerIsAdmin />
      ) : (
        <div className="text-muted-foreground flex min-h-[300px] flex-col items-center justify-center gap-2 rounded-xl border border-dashed text-sm">
          <UsersIcon className="size-8" aria-hidden /> Sélectionnez un utilisateur pour afficher la conversation.
        </div>
      )}
    </div>
  );
}
