import * as React from "react";
import { Navigate } from "react-router-dom";
import { toast } from "sonner";
import { PageSpinner } from "@/components/layout/page-states";
import { ProfileErrorPanel } from "@/components/profile-error-panel";
import { useAuth } from "@/features/auth";

/**
 * Admin screens: signed out -> /connexion; not admin -> / with the toast 'Accès refusé'.
 * Whether the user is admin comes from their profile: while it is read, a spinner; when the
 * read fails, the failure and a way to try again (not an endless "Chargement...").
 */
export function AdminGuard({ children }: { children: React.ReactNode }) {
  const { loading, user, isAdmin, profile, profileError, refreshProfile } = useAuth();
  const profileLoading = !!user && !profile && !profileError;
  const refused = !loading && !!user && !!profile && !isAdmin;

  React.useEffect(() => {
    if (refused) toast.error("Accès refusé", { description: "Vous n'avez pas les droits d'accès à cette page." });
  }, [refused]);

  if (loading || profileLoading) return <PageSpinner />;
  if (!user) return <Navigate to="/connexion" replace />;
  if (profileError) return <ProfileErrorPanel onRetry={refreshProfile} />;
  if (!isAdmin) return <Navigate to="/" replace />;
  return <>{children}</>;
}
