import { LegalPage } from "@/components/layout/legal-page";
import { SITE_NAME } from "@/config/app";
import { useSiteContact } from "@/features/contact";
import { useDocumentTitle } from "@/lib/use-document-title";

export default function LegalNotice() {
  const email = useSiteContact().email;
  useDocumentTitle("Mentions légales");
  return (
    <LegalPage title="Mentions légales" updated="1 janvier 2025">
      <section>
        <h2>Éditeur du site</h2>
        <p>Le site {SITE_NAME} est édité par son fondateur, professeur d'anglais indépendant. Contact : {email ?? "l'adresse de contact du site"}.</p>
      </section>
      <section>
        <h2>Hébergement</h2>
        <p>Le site et ses données sont hébergés sur des serveurs situés dans l'Union européenne.</p>
      </section>
      <section>
        <h2>Propriété intellectuelle</h2>
        <p>Les livres, vidéos et contenus pédagogiques sont protégés par le droit d'auteur. Toute reproduction ou diffusion sans autorisation est interdite.</p>
      </section>
    </LegalPage>
  );
}
