import * as React from "react";
import { useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import type { Session, User } from "@supabase/supabase-js";
import { fetchProfile, getSession, onAuthChange, signOut as apiSignOut } from "@/features/auth/api/auth";
import { isOwnerAccount } from "@/features/contact";
import { clearRecoveryPending } from "@/lib/recovery";
import type { Profile } from "@/types/db";

export interface AuthState {
  loading: boolean;
  session: Session | null;
  user: User | null;
  profile: Profile | null;
  /** The signed-in user's profile could not be read (refreshProfile tries again). */
  profileError: boolean;
  /** True only when the profile role is 'admin'. */
  isAdmin: boolean;
  /** The hard-coded owner account (shown the Admin link even when not admin). */
  isOwner: boolean;
  refreshProfile: () => Promise<void>;
  signOut: () => Promise<void>;
}

const AuthContext = React.createContext<AuthState | null>(null);

export function AuthProvider({ children }: { children: React.ReactNode }) {
  const [loading, setLoading] = React.useState(true);
  const [session, setSession] = React.useState<Session | null>(null);
  const [profile, setProfile] = React.useState<Profile | null>(null);
  const [profileError, setProfileError] = React.useState(false);
  const [owner, setOwner] = React.useState<{ userId: string; value: boolean } | null>(null);
  const userId = session?.user.id ?? null;
  // Set while this page signs itself out, to tell that from a session ended elsewhere.
  const signingOut = React.useRef(false);
  const queryClient = useQueryClient();
  const cachedFor = React.useRef<string | null>(null);

  // The server state cached for one user never shows to the next: cleared on sign-out and
  // on a switch of account.
  React.useEffect(() => {
    if (cachedFor.current !== null && cachedFor.current !== userId) queryClient.clear();
    cachedFor.current = userId;
  }, [queryClient, userId]);

  React.useEffect(() => {
    let alive = true;
    let signedIn = false;
    getSession()
      .then((s) => alive && setSession(s))
      .catch(() => alive && setSession(null))
      .finally(() => alive && setLoading(false));
    const off = onAuthChange((event, s) => {
      if (!alive) return;
      // A refresh refused by the server (the session was ended or expired) signs out here.
      if (event === "SIGNED_OUT" && signedIn && !signingOut.current) {
        toast("Session terminée", { description: "Votre session a pris fin. Veuillez vous reconnecter." });
      }
      signedIn = !!s;
      setSession(s);
      setLoading(false);
    });
    return () => {
      alive = false;
      off();
    };
  }, []);

  // isAdmin is re-checked on each auth change and reset on sign-out or error.
  const refreshProfile = React.useCallback(async () => {
    if (!userId) {
      setProfile(null);
      return;
    }
    setProfileError(false);
    try {
      setProfile(await fetchProfile(userId));
    } catch {
      setProfile(null);
      setProfileError(true);
    }
  }, [userId]);

  React.useEffect(() => {
    void refreshProfile();
  }, [refreshProfile]);

  // The owner account is known to the server only (an app setting): asked once per user.
  React.useEffect(() => {
    if (!userId) return;
    let alive = true;
    void isOwnerAccount().then((value) => alive && setOwner({ userId, value }));
    return () => {
      alive = false;
    };
  }, [userId]);

  // Signs this device out: its auth session ends, so it leaves the connected-devices list;
  // the account's other devices stay signed in.
  const signOut = React.useCallback(async () => {
    clearRecoveryPending();
    signingOut.current = true;
    try {
      await apiSignOut();
    } finally {
      signingOut.current = false;
      setSession(null);
      setProfile(null);
    }
  }, []);

  const value: AuthState = {
    loading,
    session,
    user: session?.user ?? null,
    profile: profile && profile.id === userId ? profile : null,
    profileError: !!userId && profileError,
    isAdmin: !!profile && profile.id === userId && profile.role === "admin",
    isOwner: !!userId && owner?.userId === userId && owner.value,
    refreshProfile,
    signOut,
  };
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const ctx = React.useContext(AuthContext);
  if (!ctx) throw new Error("useAuth outside AuthProvider");
  return ctx;
}
