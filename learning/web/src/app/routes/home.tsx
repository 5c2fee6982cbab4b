import { Link } from "react-router-dom";
import { ArrowLeftIcon, ArrowRightIcon, BookOpenIcon, CheckCircle2Icon, MessageCircleIcon, PlayCircleIcon, SparklesIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { PageSpinner } from "@/components/layout/page-states";
import { useAuth, greeting, isNewAccount } from "@/features/auth";
import { useBookCount } from "@/features/books";
import { SITE_NAME } from "@/config/app";
import { useDocumentTitle } from "@/lib/use-document-title";

export default function Home() {
  const { loading, user } = useAuth();
  useDocumentTitle(user ? "Bienvenue" : null);
  if (loading) return <PageSpinner />;
  return user ? <Welcome name={user.user_metadata?.full_name as string | undefined} /> : <Landing />;
}

const FEATURES = [
  {
    icon: BookOpenIcon,
    title: "Livres Pédagogiques",
    text: "Des livres PDF clairs et progressifs pour maîtriser la grammaire, le vocabulaire et la prononciation.",
  },
  {
    icon: PlayCircleIcon,
    title: "Cours Vidéo",
    text: "Des leçons vidéo courtes à suivre à votre rythme, avec votre progression enregistrée leçon après leçon.",
  },
  {
    icon: MessageCircleIcon,
    title: "Support Personnalisé",
    text: "Une question ? Échangez directement avec votre professeur par messagerie privée ou WhatsApp.",
  },
];

function Landing() {
  return (
    <>
      <section className="relative overflow-hidden border-b bg-gradient-to-b from-accent/70 to-background">
        <div className="mx-auto grid max-w-7xl items-center gap-12 px-4 py-16 sm:px-6 md:py-24 lg:grid-cols-2">
          <div className="space-y-6">
            <span className="bg-background text-primary inline-flex items-center gap-1.5 rounded-full border px-3 py-1 text-xs font-semibold">
              <SparklesIcon className="size-3.5" aria-hidden /> Pour les francophones
            </span>
            <h1 className="text-4xl font-bold tracking-tight text-balance sm:text-5xl lg:text-6xl">
              Apprenez l'anglais <span className="text-primary">facilement</span>
            </h1>
            <p className="text-muted-foreground max-w-xl text-lg leading-relaxed">
              Livres pédagogiques, cours vidéo et accompagnement personnalisé : tout ce qu'il faut pour progresser en anglais, à votre rythme.
            </p>
            <div className="flex flex-col gap-3 sm:flex-row">
              <Button asChild size="lg">
                <Link to="/inscription">
                  Commencer maintenant <ArrowRightIcon aria-hidden />
                </Link>
              </Button>
              <Button asChild size="lg" variant="outline">
                <Link to="/cours">Découvrir nos cours</Link>
              </Button>
            </div>
            <ul className="text-muted-foreground flex flex-wrap gap-x-6 gap-y-2 text-sm">
              {["Du débutant à l'avancé", "Accès sur mobile et ordinateur", "Professeur disponible"].map((t) => (
                <li key={t} className="flex items-center gap-1.5">
                  <CheckCircle2Icon className="size-4 text-emerald-600" aria-hidden /> {t}
                </li>
              ))}
            </ul>
          </div>
          <HeroIllustration />
        </div>
      </section>

      <section className="mx-auto w-full max-w-7xl px-4 py-16 sm:px-6 md:py-20">
        <div className="mx-auto mb-10 max-w-2xl text-center">
          <h2 className="text-3xl font-bold tracking-tight">Pourquoi choisir {SITE_NAME} ?</h2>
          <p className="text-muted-foreground mt-3">Une méthode complète pensée pour les francophones, avec des ressources variées et un vrai suivi.</p>
        </div>
        <div className="grid gap-6 md:grid-cols-3">
          {FEATURES.map(({ icon: Icon, title, text }) => (
            <Card key={title} className="transition-shadow hover:shadow-md">
              <CardHeader>
                <span className="bg-accent text-primary mb-2 flex size-12 items-center justify-center rounded-xl">
                  <Icon className="size-6" aria-hidden />
                </span>
                <CardTitle className="text-xl">{title}</CardTitle>
              </CardHeader>
              <CardContent>
                <p className="text-muted-foreground leading-relaxed">{text}</p>
              </CardContent>
            </Card>
          ))}
        </div>
      </section>

      <section className="px-4 pb-20 sm:px-6">
        <div className="bg-primary text-primary-foreground mx-auto flex max-w-5xl flex-col items-center gap-5 rounded-2xl px-6 py-12 text-center shadow-lg">
          <h2 className="text-2xl font-bold sm:text-3xl">Prêt à parler anglais avec confiance ?</h2>
          <p className="max-w-xl opacity-90">Créez votre compte gratuitement et accédez dès aujourd'hui aux cours gratuits.</p>
          <Button asChild size="lg" variant="secondary">
            <Link to="/inscription">S'inscrire maintenant</Link>
          </Button>
        </div>
      </section>
    </>
  );
}

function HeroIllustration() {
  return (
    <div className="relative mx-auto hidden w-full max-w-md sm:block" aria-hidden>
      <div className="bg-primary/10 absolute -top-6 -right-6 size-40 rounded-full blur-2xl" />
      <div className="bg-card relative rounded-2xl border p-5 shadow-xl">
        <div className="mb-4 flex items-center justify-between">
          <div>
            <p className="text-muted-foreground text-xs font-medium">Leçon 4</p>
            <p className="font-semibold">Le présent continu</p>
          </div>
          <span className="rounded-full bg-emerald-100 px-2 py-0.5 text-xs font-medium text-emerald-800">Gratuite</span>
        </div>
        <div className="from-primary to-primary/70 flex aspect-video items-center justify-center rounded-xl bg-gradient-to-br">
          <PlayCircleIcon className="size-14 text-white/90" />
        </div>
        <div className="mt-4 space-y-2">
          <div className="flex justify-between text-xs">
            <span className="text-muted-foreground">Progression</span>
            <span className="font-medium">62 %</span>
          </div>
          <div className="bg-primary/15 h-2 rounded-full">
            <div className="bg-primary h-2 w-[62%] rounded-full" />
          </div>
        </div>
        <div className="mt-4 grid grid-cols-8 gap-1.5">
          {Array.from({ length: 8 }, (_, i) => (
            <div key={i} className={`flex h-7 items-center justify-center rounded-md text-xs font-medium ${i < 4 ? "bg-emerald-500 text-white" : i === 4 ? "bg-primary text-white" : "bg-muted text-muted-foreground"}`}>
              {i + 1}
            </div>
          ))}
        </div>
      </div>
      <BookCountBadge />
    </div>
  );
}

/** The shelf's real size, from the database; nothing until it is known (and none for an empty shelf). */
function BookCountBadge() {
  const { data: count } = useBookCount();
  if (!count) return null;
  return (
    <div className="bg-card absolute -bottom-6 -left-6 flex items-center gap-3 rounded-xl border px-4 py-3 shadow-lg" data-testid="landing-book-count">
      <BookOpenIcon className="text-primary size-6" />
      <div>
        <p className="text-sm font-semibold">{count.toLocaleString("fr-FR")} {count > 1 ? "livres" : "livre"}</p>
        <p className="text-muted-foreground text-xs">à télécharger</p>
      </div>
    </div>
  );
}

function Welcome({ name }: { name?: string }) {
  const { user } = useAuth();
  const hello = greeting(name, !!user && isNewAccount(user));
  return (
    <div className="mx-auto flex w-full max-w-4xl flex-1 flex-col px-4 py-10 sm:px-6 md:py-16">
      <Button asChild variant="ghost" size="sm" className="self-start">
        <Link to="/">
          <ArrowLeftIcon aria-hidden /> Retour à l'accueil
        </Link>
      </Button>
      <div className="mt-6 text-center">
        <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">Bienvenue sur {SITE_NAME}</h1>
        <p className="text-muted-foreground mt-3">{hello}Que souhaitez-vous étudier aujourd'hui ?</p>
      </div>
      {/* Mobile: two large buttons. */}
      <div className="mt-10 grid gap-4 md:hidden">
        <Button asChild size="lg" className="h-16 text-lg">
          <Link to="/livres">
            <BookOpenIcon aria-hidden /> Livres
          </Link>
        </Button>
        <Button asChild size="lg" variant="outline" className="h-16 text-lg">
          <Link to="/cours">
            <PlayCircleIcon aria-hidden /> Cours
          </Link>
        </Button>
      </div>
      <div className="mt-12 hidden gap-6 md:grid md:grid-cols-2">
        <Tile to="/livres" icon={<BookOpenIcon className="size-10" aria-hidden />} title="Livres" text="Téléchargez vos livres d'anglais au format PDF." />
        <Tile to="/cours" icon={<PlayCircleIcon className="size-10" aria-hidden />} title="Cours" text="Suivez vos cours vidéo et votre progression." />
      </div>
    </div>
  );
}

function Tile({ to, icon, title, text }: { to: string; icon: React.ReactNode; title: string; text: string }) {
  return (
    <Link to={to} className="group focus-visible:ring-ring/50 rounded-2xl outline-none focus-visible:ring-[3px]">
      <Card className="h-full items-center py-12 text-center transition-all group-hover:-translate-y-1 group-hover:shadow-lg">
        <span className="bg-accent text-primary group-hover:bg-primary group-hover:text-primary-foreground flex size-20 items-center justify-center rounded-2xl transition-colors">{icon}</span>
        <CardHeader className="w-full">
          <CardTitle className="text-2xl">{title}</CardTitle>
          <CardDescription>{text}</CardDescription>
        </CardHeader>
      </Card>
    </Link>
  );
}
