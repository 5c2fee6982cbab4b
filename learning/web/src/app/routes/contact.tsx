import { MailIcon, MessageCircleIcon, PhoneIcon } from "lucide-react";
import { Link } from "react-router-dom";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { PageContainer } from "@/components/layout/page-states";
import { useSiteContact, whatsappLink } from "@/features/contact";
import { useAuth } from "@/features/auth";
import { useDocumentTitle } from "@/lib/use-document-title";

export default function Contact() {
  const contact = useSiteContact();
  useDocumentTitle("Contact");
  const { user } = useAuth();
  return (
    <PageContainer className="max-w-3xl">
      <div className="mb-8 text-center">
        <h1 className="text-3xl font-bold tracking-tight">Contactez-nous</h1>
        <p className="text-muted-foreground mt-2">Une question sur les cours, un accès ou un paiement ? Nous vous répondons rapidement.</p>
      </div>
      <Card className="overflow-hidden border-emerald-200 py-0 dark:border-emerald-900">
        <div className="flex flex-col items-center gap-4 bg-emerald-700 px-6 py-8 text-center text-white">
          <span className="flex size-16 items-center justify-center rounded-full bg-white/15">
            <MessageCircleIcon className="size-8" aria-hidden />
          </span>
          <div>
            <h2 className="text-xl font-semibold">WhatsApp</h2>
            <p className="text-sm opacity-90">Le moyen le plus rapide de joindre votre professeur</p>
          </div>
        </div>
        <CardContent className="flex flex-col items-center gap-4 py-6 text-center">
          <p className="flex items-center gap-2 text-lg font-semibold">
            <PhoneIcon className="text-emerald-600 size-5" aria-hidden /> {contact.whatsapp_number ?? "—"}
          </p>
          <Button asChild size="lg" className="bg-emerald-700 text-white hover:bg-emerald-800">
            <a href={whatsappLink(contact.whatsapp_number ?? "", "Bonjour, j'ai une question.")} target="_blank" rel="noopener noreferrer">
              Ouvrir WhatsApp
            </a>
          </Button>
        </CardContent>
      </Card>
      <div className="mt-6 grid gap-4 sm:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle className="flex items-center gap-2">
              <MailIcon className="text-primary size-5" aria-hidden /> Email
            </CardTitle>
            <CardDescription>
              <a className="text-primary break-all hover:underline" href={contact.email ? `mailto:${contact.email}` : undefined}>
                {contact.email ?? "—"}
              </a>
            </CardDescription>
          </CardHeader>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle className="flex items-center gap-2">
              <MessageCircleIcon className="text-primary size-5" aria-hidden /> Messagerie privée
            </CardTitle>
            <CardDescription>
              {user ? (
                <Link className="text-primary hover:underline" to="/messages">
                  Écrire à l'administrateur
                </Link>
              ) : (
                <>
                  <Link className="text-primary hover:underline" to="/connexion">
                    Connectez-vous
                  </Link>{" "}
                  pour écrire à l'administrateur.
                </>
              )}
            </CardDescription>
          </CardHeader>
        </Card>
      </div>
    </PageContainer>
  );
}
