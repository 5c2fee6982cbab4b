import { Link } from "react-router-dom";
import { KeyRoundIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { IDLE_DAYS, MAX_SESSION_DAYS } from "@/features/sessions/lib/limits";

/**
 * The way out of a sign-in refused at the device limit: a recovery link signs this device in
 * and ends the least recently used session (the server's recover-at-limit rule), and a device
 * frees itself once its session lapses.
 */
export function DeviceLimitHelp({ email }: { email: string }) {
  return (
    <section aria-labelledby="device-limit-help-title" data-testid="device-limit-help" className="bg-muted/50 space-y-3 rounded-lg border p-4 text-sm">
      <h2 id="device-limit-help-title" className="font-medium">
        Vous n'avez plus accès à vos autres appareils ?
      </h2>
      <p>Réinitialisez votre mot de passe : le lien reçu par e-mail vous connecte sur cet appareil et libère l'appareil utilisé le moins récemment.</p>
      <Button asChild variant="outline" className="h-auto min-h-9 w-full py-2 whitespace-normal">
        <Link to="/mot-de-passe-oublie" state={{ email }}>
          <KeyRoundIcon aria-hidden /> Réinitialiser mon mot de passe
        </Link>
      </Button>
      <p className="text-muted-foreground">
        Sinon, un appareil se libère de lui-même après {IDLE_DAYS} jours sans utilisation, et au plus tard {MAX_SESSION_DAYS} jours après sa connexion.
      </p>
    </section>
  );
}
