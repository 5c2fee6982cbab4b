import * as React from "react";
import { Loader2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { ErrorPanel, PageContainer } from "@/components/layout/page-states";

/**
 * The signed-in user's profile could not be read: said, with "Réessayer" (`onRetry` reads it
 * again), instead of a "Chargement..." that never ends.
 */
export function ProfileErrorPanel({ onRetry }: { onRetry: () => Promise<void> }) {
  const [retrying, setRetrying] = React.useState(false);
  const retry = async () => {
    setRetrying(true);
    try {
      await onRetry();
    } finally {
      setRetrying(false);
    }
  };
  return (
    <PageContainer>
      <ErrorPanel
        title="Impossible de charger votre profil"
        description="Vos droits d'accès n'ont pas pu être vérifiés. Vérifiez votre connexion puis réessayez."
        action={
          <Button variant="outline" onClick={() => void retry()} disabled={retrying}>
            {retrying && <Loader2Icon className="animate-spin" aria-hidden />} Réessayer
          </Button>
        }
      />
    </PageContainer>
  );
}
