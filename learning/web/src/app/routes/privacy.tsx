import { LegalPage } from "@/components/layout/legal-page";
import { useSiteContact } from "@/features/contact";
import { useDocumentTitle } from "@/lib/use-document-title";

export default function Privacy() {
  const email = useSiteContact().email;
  useDocumentTitle("Politique de confidentialité");
  return (
    <LegalPage title="Politique de confidentialité" updated="1 janvier 2025">
      <section>
        <h2>Données collectées</h2>
        <p>Nous collectons les informations fournies à l'inscription (nom, email, pays, numéro WhatsApp, niveau) ainsi que votre progression dans les cours.</p>
      </section>
      <section>
        <h2>Utilisation</h2>
        <p>Ces données servent uniquement à gérer votre compte, vos accès aux contenus et à vous accompagner dans votre apprentissage.</p>
      </section>
      <section>
        <h2>Appareils connectés</h2>
        <p>Pour protéger votre compte, nous enregistrons le nom de vos appareils connectés et leur dernière activité. Vous pouvez les déconnecter depuis votre compte.</p>
      </section>
      <section>
        <h2>Vos droits</h2>
        <p>Vous pouvez demander l'accès, la rectification ou la suppression de vos données en écrivant à {email ?? "l'adresse de contact du site"}.</p>
      </section>
    </LegalPage>
  );
}
