import { Link } from "react-router-dom";
import { CompassIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { useDocumentTitle } from "@/lib/use-document-title";

export default function NotFound() {
  useDocumentTitle("Page introuvable");
  return (
    <div className="mx-auto flex max-w-lg flex-1 flex-col items-center justify-center gap-5 px-4 py-24 text-center">
      <div className="bg-accent text-primary flex size-16 items-center justify-center rounded-full">
        <CompassIcon className="size-8" aria-hidden />
      </div>
      <p className="text-primary text-6xl font-bold tracking-tight">404</p>
      <h1 className="text-2xl font-semibold">Désolé, cette page n'existe pas</h1>
      <p className="text-muted-foreground">La page que vous cherchez a peut-être été déplacée ou supprimée.</p>
      <Button asChild size="lg">
        <Link to="/">Retour à l'accueil</Link>
      </Button>
    </div>
  );
}
