import { useEffect } from "react";
import { Navigate } from "react-router-dom";
import { toast } from "sonner";
import { ShieldIcon } from "lucide-react";
import { PageContainer, PageSpinner } from "@/components/layout/page-states";
import { useAuth } from "@/features/auth/hooks/auth-context";
import { useDocumentTitle } from "@/lib/use-document-title";

/** Guard of the back-office: signed out -> /connexion, not admin -> / with 'Accès refusé'. */
export default function AdminRoute() {
  const { loading, user, isAdmin, profile } = useAuth();
  useDocumentTitle("Administration");
  const profileLoading = !!user && !profile;
  const refused = !loading && !!user && !profileLoading && !isAdmin;

  useEffect(() => {
    if (refused) toast.error("Accès refusé", { description: "Vous n'avez pas les droits d'accès à cette page." });
  }, [refused]);

  if (loading || profileLoading) return <PageSpinner />;
  if (!user) return <Navigate to="/connexion" replace />;
  if (!isAdmin) return <Navigate to="/" replace />;
  return (
    <PageContainer>
      <div className="flex items-center gap-3">
        <ShieldIcon className="text-primary size-7" aria-hidden />
        <h1 className="text-2xl font-bold">Administration</h1>
      </div>
      <p className="text-muted-foreground mt-3">Le back-office arrive bientôt.</p>
    </PageContainer>
  );
}
