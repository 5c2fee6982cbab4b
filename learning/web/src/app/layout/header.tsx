import * as React from "react";
import { Link, NavLink, useLocation } from "react-router-dom";
import { GraduationCapIcon, LogOutIcon, MenuIcon, UserIcon, XIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { ThemeToggle } from "@/components/theme/theme-toggle";
import { useAuth, useLogout } from "@/features/auth";
import { useUnreadCount } from "@/features/messages";
import { SITE_NAME } from "@/config/app";
import { cn } from "@/lib/utils";

interface NavItem {
  to: string;
  label: string;
  dot?: boolean;
}

export function Header() {
  const { user, isAdmin, isOwner } = useAuth();
  const location = useLocation();
  const [open, setOpen] = React.useState(false);
  const unread = useUnreadCount(user?.id ?? null);
  const showDot = unread > 0 && location.pathname !== "/messages";

  React.useEffect(() => setOpen(false), [location.pathname]);

  const items: NavItem[] = [
    { to: "/", label: "Accueil" },
    { to: "/livres", label: "Livres" },
    { to: "/cours", label: "Cours" },
    { to: "/contact", label: "Contact" },
  ];
  if (user) items.push({ to: "/messages", label: "Messages", dot: showDot });
  if (isAdmin || isOwner) items.push({ to: "/admin", label: "Admin" });

  const logout = useLogout();

  const linkClass = ({ isActive }: { isActive: boolean }) =>
    cn(
      "relative rounded-md px-3 py-2 text-sm font-medium transition-colors hover:bg-accent hover:text-accent-foreground",
      isActive ? "text-primary" : "text-foreground/80",
    );

  return (
    <header className="bg-background/90 sticky top-0 z-40 border-b backdrop-blur supports-[backdrop-filter]:bg-background/75">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6">
        <Link to="/" className="flex items-center gap-2 font-semibold tracking-tight" aria-label={`${SITE_NAME}, accueil`}>
          <span className="bg-primary text-primary-foreground flex size-9 items-center justify-center rounded-lg">
            <GraduationCapIcon className="size-5" aria-hidden />
          </span>
          <span className="text-lg">{SITE_NAME}</span>
        </Link>

        <nav aria-label="Navigation principale" className="hidden items-center gap-1 md:flex">
          {items.map((item) => (
            <NavLink key={item.to} to={item.to} end={item.to === "/"} className={linkClass}>
              {item.label}
              {item.dot && <UnreadDot />}
            </NavLink>
          ))}
          {isOwner && !isAdmin && user && <span className="ml-1 text-xs font-semibold text-red-600">Statut administrateur à vérifier !</span>}
        </nav>

        <div className="flex items-center gap-1">
          <ThemeToggle />
          <div className="hidden items-center gap-2 md:flex">
            {user ? (
              <>
                <Button asChild variant="ghost" size="sm">
                  <Link to="/compte">
                    <UserIcon aria-hidden /> Mon Compte
                  </Link>
                </Button>
                <Button variant="outline" size="sm" onClick={logout}>
                  <LogOutIcon aria-hidden /> Déconnexion
                </Button>
              </>
            ) : (
              <>
                <Button asChild variant="ghost" size="sm">
                  <Link to="/connexion">Connexion</Link>
                </Button>
                <Button asChild size="sm">
                  <Link to="/inscription">Inscription</Link>
                </Button>
              </>
            )}
          </div>
          <Button
            variant="ghost"
            size="icon"
            className="relative md:hidden"
            aria-label={open ? "Fermer le menu" : "Ouvrir le menu"}
            aria-expanded={open}
            aria-controls="mobile-menu"
            onClick={() => setOpen((v) => !v)}
          >
            {open ? <XIcon /> : <MenuIcon />}
            {!open && showDot && <UnreadDot className="top-1.5 right-1.5" />}
          </Button>
        </div>
      </div>

      {open && (
        <nav id="mobile-menu" aria-label="Menu mobile" className="border-t md:hidden">
          <div className="mx-auto flex max-w-7xl flex-col gap-1 px-4 py-3">
            {items.map((item) => (
              <NavLink key={item.to} to={item.to} end={item.to === "/"} className={linkClass}>
                <span className="relative">
                  {item.label}
                  {item.dot && <UnreadDot className="-top-0.5 -right-3" />}
                </span>
              </NavLink>
            ))}
            {isOwner && !isAdmin && user && <span className="px-3 text-xs font-semibold text-red-600">Statut administrateur à vérifier !</span>}
            <div className="mt-2 grid grid-cols-2 gap-2 border-t pt-3">
              {user ? (
                <>
                  <Button asChild variant="outline">
                    <Link to="/compte">Mon Compte</Link>
                  </Button>
                  <Button variant="secondary" onClick={logout}>
                    Déconnexion
                  </Button>
                </>
              ) : (
                <>
                  <Button asChild variant="outline">
                    <Link to="/connexion">Connexion</Link>
                  </Button>
                  <Button asChild>
                    <Link to="/inscription">Inscription</Link>
                  </Button>
                </>
              )}
            </div>
          </div>
        </nav>
      )}
    </header>
  );
}

function UnreadDot({ className }: { className?: string }) {
  return (
    <span data-testid="unread-dot" className={cn("absolute top-1 right-0.5 size-2.5 rounded-full bg-red-600 ring-2 ring-background", className)}>
      <span className="sr-only">Nouveaux messages non lus</span>
    </span>
  );
}
