import { toast } from "sonner";
import { LaptopIcon, Loader2Icon, SmartphoneIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { useAuth } from "@/features/auth";
import type { DeviceSession } from "@/features/sessions/api/sessions";
import { useMySessions, useTerminateSession } from "@/features/sessions/hooks/use-sessions";
import { deviceLabel } from "@/features/sessions/lib/device";
import { formatDateTimeFr } from "@/lib/format";
import { useErrorToast } from "@/lib/use-error-toast";

export const MAX_DEVICES = 2;

/** The learner's connected devices (every live auth session) with terminate buttons. */
export function DevicesCard() {
  const { user, signOut } = useAuth();
  const query = useMySessions(user?.id ?? null);
  const end = useTerminateSession();
  const busy = end.isPending ? end.variables.id : null;
  // A failed read lists no device (and says so once per failure).
  const sessions: DeviceSession[] | null = query.isError ? [] : (query.data ?? null);

  useErrorToast(query.error, "Impossible de charger les sessions.");

  const terminate = async (s: DeviceSession) => {
    try {
      await end.mutateAsync(s);
      toast.success("Session terminée");
      // Terminating this device's own session signs the user out.
      if (s.is_this_device) await signOut();
    } catch {
      toast.error("Impossible de terminer la session.");
    }
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>Appareils connectés</CardTitle>
        <CardDescription>Chaque compte peut être connecté sur {MAX_DEVICES} appareils au maximum en même temps.</CardDescription>
      </CardHeader>
      <CardContent>
        {sessions === null ? (
          <p className="text-muted-foreground flex items-center gap-2 text-sm">
            <Loader2Icon className="size-4 animate-spin" aria-hidden /> Chargement des appareils...
          </p>
        ) : sessions.length === 0 ? (
          <p className="text-muted-foreground text-sm">Aucun appareil connecté.</p>
        ) : (
          <ul className="divide-y" data-testid="devices">
            {sessions.map((s) => {
              const mobile = /Android|iOS/.test(s.device_name ?? "");
              const Icon = mobile ? SmartphoneIcon : LaptopIcon;
              return (
                <li key={s.id} className="flex flex-col gap-3 py-3 sm:flex-row sm:items-center" data-testid="device">
                  <div className="flex min-w-0 flex-1 items-center gap-3">
                    <span className="bg-muted flex size-10 shrink-0 items-center justify-center rounded-lg">
                      <Icon className="size-5" aria-hidden />
                    </span>
                    <div className="min-w-0">
                      <p className="flex flex-wrap items-center gap-2 font-medium">
                        {deviceLabel(s.device_name)}
                        {s.is_this_device && <Badge variant="success">Cet appareil</Badge>}
                      </p>
                      <p className="text-muted-foreground text-xs">
                        Dernière activité : {formatDateTimeFr(s.last_active) || "—"}
                        {s.ip_address && s.ip_address !== "Unknown" ? ` · ${s.ip_address}` : ""}
                      </p>
                    </div>
                  </div>
                  <Button variant="outline" size="sm" className="text-destructive hover:text-destructive" onClick={() => void terminate(s)} disabled={busy === s.id}>
                    {busy === s.id && <Loader2Icon className="animate-spin" aria-hidden />} Terminer
                  </Button>
                </li>
              );
            })}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
