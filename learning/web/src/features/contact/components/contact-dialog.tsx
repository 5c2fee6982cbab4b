import { MessageCircleIcon, PhoneIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { useSiteContact } from "@/features/contact/hooks/use-site-contact";
import { courseContactMessage, whatsappLink } from "@/features/contact/lib/whatsapp";

/** Shown when a learner has no access to a course: opens a prefilled WhatsApp chat. */
export function ContactDialog({ open, onOpenChange, courseTitle, email }: { open: boolean; onOpenChange: (open: boolean) => void; courseTitle: string; email: string | null | undefined }) {
  const phone = useSiteContact().whatsapp_number ?? "";
  const href = whatsappLink(phone, courseContactMessage(courseTitle, email));
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Accéder à « {courseTitle} »</DialogTitle>
          <DialogDescription>Ce cours est payant. Contactez le professeur sur WhatsApp : il vous donnera l'accès dès la réception de votre paiement.</DialogDescription>
        </DialogHeader>
        <div className="bg-muted flex items-center gap-3 rounded-lg p-4">
          <PhoneIcon className="text-primary size-5" aria-hidden />
          <div>
            <p className="text-muted-foreground text-xs">Numéro du professeur</p>
            <p className="font-semibold" data-testid="contact-number">{phone || "—"}</p>
          </div>
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Fermer
          </Button>
          <Button asChild className="bg-emerald-700 text-white hover:bg-emerald-800">
            <a href={href} target="_blank" rel="noopener noreferrer">
              <MessageCircleIcon aria-hidden /> Contacter sur WhatsApp
            </a>
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
