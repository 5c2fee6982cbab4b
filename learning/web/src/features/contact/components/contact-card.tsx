import { MessageCircleIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { useSiteContact } from "@/features/contact/hooks/use-site-contact";
import { whatsappLink } from "@/features/contact/lib/whatsapp";
import { cn } from "@/lib/utils";

export function ContactCard({ title = "Besoin d'aide ou d'un accès ?", text = "Contactez le professeur sur WhatsApp pour toute question ou pour accéder aux cours payants.", className }: { title?: string; text?: string; className?: string }) {
  const phone = useSiteContact().whatsapp_number;
  return (
    <section className={cn("flex flex-col items-center gap-4 rounded-2xl border bg-emerald-50 px-6 py-8 text-center sm:flex-row sm:text-left dark:bg-emerald-950/30", className)}>
      <span className="flex size-14 shrink-0 items-center justify-center rounded-full bg-emerald-600 text-white">
        <MessageCircleIcon className="size-7" aria-hidden />
      </span>
      <div className="flex-1">
        <h2 className="text-lg font-semibold">{title}</h2>
        <p className="text-muted-foreground mt-1 text-sm">{text}</p>
        {phone && <p className="mt-1 text-sm font-medium">{phone}</p>}
      </div>
      {phone && (
        <Button asChild className="bg-emerald-700 text-white hover:bg-emerald-800">
          <a href={whatsappLink(phone)} target="_blank" rel="noopener noreferrer">
            Écrire sur WhatsApp
          </a>
        </Button>
      )}
    </section>
  );
}
