import { toast } from "sonner";
import { LaptopIcon, RefreshCwIcon } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { EmptyState, PageSpinner } from "@/components/layout/page-states";
import { deviceLabel, useTerminateSession, type DeviceSession } from "@/features/sessions";
import { useAuth } from "@/features/auth";
import { errorText } from "@/features/admin/lib/errors";
import { useWide } from "@/features/admin/hooks/use-wide";
import { useAdminSessions } from "@/features/admin/hooks/use-admin-sessions";
import { formatDateTimeFr } from "@/lib/format";

/** Every connected device, refreshed every 60 s; terminating signs that device out. */
export function SessionsTab() {
  const { isAdmin, signOut } = useAuth();
  const query = useAdminSessions(isAdmin);
  const sessions = query.data ?? (query.isError ? [] : null);
  const end = useTerminateSession();
  const busy = end.isPending ? end.variables?.id : null;
  const wide = useWide();

  if (!isAdmin) return <p className="text-destructive text-sm">Accès non autorisé. Seuls les administrateurs peuvent voir cette page.</p>;

  const terminate = async (s: DeviceSession) => {
    try {
      // The list is read again before this resolves, except for this device (signed out below).
      await end.mutateAsync(s);
      toast.success("Session terminée", { description: `${deviceLabel(s.device_name)} — ${s.user_email ?? ""}` });
      if (s.is_this_device) await signOut();
    } catch (error) {
      toast.error("Erreur", { description: errorText(error, "Impossible de terminer la session.") });
    }
  };

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-muted-foreground text-sm">Chaque compte peut être connecté sur 2 appareils au maximum. La liste se met à jour toutes les 60 secondes.</p>
        <Button variant="outline" size="sm" onClick={() => void query.refetch()}>
          <RefreshCwIcon aria-hidden /> Actualiser
        </Button>
      </div>
      {sessions === null ? (
        <PageSpinner label="Chargement des sessions..." />
      ) : sessions.length === 0 ? (
        <EmptyState icon={<LaptopIcon className="size-8" aria-hidden />} title="Aucune session active." />
      ) : (
        <div className="rounded-xl border">
          <Table>
            <TableHeader>
              <TableRow>
                <TableHead>{wide ? "Utilisateur" : "Utilisateur et appareil"}</TableHead>
                {wide && <TableHead>Appareil</TableHead>}
                <TableHead className="hidden md:table-cell">Adresse IP</TableHead>
                {wide && <TableHead>Dernière activité</TableHead>}
                <TableHead className="text-right">Actions</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {sessions.map((s) => (
                <TableRow key={s.id} data-testid="admin-session" data-email={s.user_email ?? ""}>
                  <TableCell className="max-w-0 whitespace-normal sm:max-w-none">
                    <p className="truncate font-medium">{s.user_full_name || "Sans nom"}</p>
                    <p className="text-muted-foreground truncate text-xs sm:max-w-48">{s.user_email}</p>
                    {/* Below 640 px the device and its activity stack under the user. */}
                    {!wide && (
                      <p className="text-muted-foreground mt-1 text-xs">
                        <span className="text-foreground">{deviceLabel(s.device_name)}</span> · {formatDateTimeFr(s.last_active)}
                        {s.is_this_device && <ThisDevice />}
                      </p>
                    )}
                  </TableCell>
                  {wide && (
                    <TableCell>
                      {deviceLabel(s.device_name)}
                      {s.is_this_device && <ThisDevice />}
                    </TableCell>
                  )}
                  <TableCell className="hidden md:table-cell">{s.ip_address}</TableCell>
                  {wide && <TableCell>{formatDateTimeFr(s.last_active)}</TableCell>}
                  <TableCell className="w-px text-right">
                    <Button size="sm" variant="destructive" disabled={busy === s.id} onClick={() => void terminate(s)}>
                      Terminer
                    </Button>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </div>
      )}
    </div>
  );
}

function ThisDevice() {
  return (
    <Badge variant="success" className="ml-2">
      Cet appareil
    </Badge>
  );
}
