import * as React from "react";
import { Navigate } from "react-router-dom";
import { toast } from "sonner";
import { PageSpinner } from "@/components/layout/page-states";
import { useAuth } from "@/features/auth";

/** Admin screens: signed out -> /connexion; not admin -> / with the toast 'Accès refusé'. */
export function AdminGuard({ children }: { children: React.ReactNode }) {
  const { loading, user, isAdmin, profile } = useAuth();
  const profileLoading = !!user && !profile;
  const refused = !loading && !!user && !profileLoading && !isAdmin;

  React.useEffect(() => {
    if (refused) toast.error("Accès refusé", { description: "Vous n'avez pas les droits d'accès à cette page." });
  }, [refused]);

  if (loading || profileLoading) return <PageSpinner />;
  if (!user) return <Navigate to="/connexion" replace />;
  if (!isAdmin) return <Navigate to="/" replace />;
  return <>{children}</>;
}
