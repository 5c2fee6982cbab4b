import { Link } from "react-router-dom";
import { GraduationCapIcon, MailIcon } from "lucide-react";
import { SITE_NAME } from "@/config/app";
import { useSiteContact } from "@/features/contact";

export function Footer() {
  const year = new Date().getFullYear();
  const email = useSiteContact().email;
  return (
    <footer className="bg-muted/40 mt-auto border-t">
      <div className="mx-auto grid max-w-7xl gap-8 px-4 py-10 sm:grid-cols-2 sm:px-6 lg:grid-cols-4">
        <div className="space-y-3">
          <div className="flex items-center gap-2 font-semibold">
            <GraduationCapIcon className="text-primary size-5" aria-hidden /> {SITE_NAME}
          </div>
          <p className="text-muted-foreground text-sm leading-relaxed">Des livres, des cours vidéo et un accompagnement personnalisé pour apprendre l'anglais à votre rythme.</p>
        </div>
        <div>
          <h2 className="mb-3 text-sm font-semibold">Liens rapides</h2>
          <ul className="text-muted-foreground space-y-2 text-sm">
            <li><Link className="hover:text-foreground" to="/">Accueil</Link></li>
            <li><Link className="hover:text-foreground" to="/livres">Livres</Link></li>
            <li><Link className="hover:text-foreground" to="/cours">Cours</Link></li>
          </ul>
        </div>
        <div>
          <h2 className="mb-3 text-sm font-semibold">Contact</h2>
          <ul className="text-muted-foreground space-y-2 text-sm">
            {email && (
              <li>
                <a className="hover:text-foreground inline-flex items-center gap-1.5 break-all" href={`mailto:${email}`}>
                  <MailIcon className="size-4 shrink-0" aria-hidden /> {email}
                </a>
              </li>
            )}
            <li><Link className="hover:text-foreground" to="/contact">Formulaire de contact</Link></li>
          </ul>
        </div>
        <div>
          <h2 className="mb-3 text-sm font-semibold">Informations légales</h2>
          <ul className="text-muted-foreground space-y-2 text-sm">
            <li><Link className="hover:text-foreground" to="/mentions-legales">Mentions légales</Link></li>
            <li><Link className="hover:text-foreground" to="/politique-confidentialite">Politique de confidentialité</Link></li>
          </ul>
        </div>
      </div>
      <div className="text-muted-foreground border-t py-4 text-center text-xs">© {year} {SITE_NAME}. Tous droits réservés.</div>
    </footer>
  );
}
