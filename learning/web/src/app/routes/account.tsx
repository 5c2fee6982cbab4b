import * as React from "react";
import { Navigate } from "react-router-dom";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { toast } from "sonner";
import { CalendarIcon, Loader2Icon, LogOutIcon, MailIcon, AlertTriangleIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { NativeSelect } from "@/components/ui/native-select";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { FormField, fieldAria } from "@/components/form-field";
import { PageContainer, PageSpinner } from "@/components/layout/page-states";
import { useAuth, useLogout, updatePassword, PasswordInput, newPasswordSchema, passwordUpdateErrorMessage, STUDENT_LEVELS, type NewPasswordValues } from "@/features/auth";
import { useUpdateProfile, subscriptionStatus, type ProfileValues } from "@/features/profile";
import { DevicesCard } from "@/features/sessions";
import { formatDateFr } from "@/lib/format";
import { useDocumentTitle } from "@/lib/use-document-title";
import { TextLimitError, tooLong } from "@/lib/text-limits";

export default function Account() {
  useDocumentTitle("Mon compte");
  const { loading, user, profile, isAdmin } = useAuth();
  const logout = useLogout();
  if (loading) return <PageSpinner />;
  if (!user) return <Navigate to="/connexion" replace />;

  const name = profile?.full_name || (user.user_metadata?.full_name as string | undefined) || user.email || "";
  const level = STUDENT_LEVELS.find((l) => l.value === profile?.student_role)?.label ?? "student";

  return (
    <PageContainer className="max-w-5xl">
      <h1 className="mb-6 text-3xl font-bold tracking-tight">Mon compte</h1>
      {/* One column below lg that never grows past the screen (a long e-mail is cut, not scrolled). */}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[300px_minmax(0,1fr)]">
        <Card className="h-fit">
          <CardContent className="flex flex-col items-center gap-3 text-center">
            <span className="bg-primary text-primary-foreground flex size-20 items-center justify-center rounded-full text-2xl font-bold uppercase" aria-hidden>
              {name.slice(0, 1)}
            </span>
            <div className="min-w-0 max-w-full">
              <p className="truncate text-lg font-semibold">{name}</p>
              <p className="text-muted-foreground flex items-center justify-center gap-1 text-sm">
                <MailIcon className="size-3.5 shrink-0" aria-hidden /> <span className="truncate">{user.email}</span>
              </p>
            </div>
            <div className="flex flex-wrap justify-center gap-2">
              <Badge variant="secondary">{level}</Badge>
              {isAdmin && <Badge>Admin</Badge>}
            </div>
            {profile?.created_at && (
              <p className="text-muted-foreground flex items-center gap-1 text-xs">
                <CalendarIcon className="size-3.5" aria-hidden /> Membre depuis le {formatDateFr(profile.created_at)}
              </p>
            )}
            <Button variant="outline" className="mt-2 w-full" onClick={() => void logout()}>
              <LogOutIcon aria-hidden /> Déconnexion
            </Button>
          </CardContent>
        </Card>

        <div className="min-w-0 space-y-6">
          <Tabs defaultValue="info">
            <TabsList className="w-full sm:w-fit">
              <TabsTrigger value="info">Informations</TabsTrigger>
              <TabsTrigger value="password">Mot de passe</TabsTrigger>
              <TabsTrigger value="subscription">Abonnements</TabsTrigger>
            </TabsList>
            <TabsContent value="info">
              <InfoTab />
            </TabsContent>
            <TabsContent value="password">
              <PasswordTab />
            </TabsContent>
            <TabsContent value="subscription">
              <SubscriptionTab />
            </TabsContent>
          </Tabs>
          <DevicesCard />
        </div>
      </div>
    </PageContainer>
  );
}

function InfoTab() {
  const { user, profile, profileError, refreshProfile } = useAuth();
  const [values, setValues] = React.useState<ProfileValues>({ full_name: "", country: "", whatsapp_number: "", student_role: "debutant" });
  const update = useUpdateProfile(user?.id ?? "", refreshProfile);
  const saving = update.isPending;
  React.useEffect(() => {
    if (profile)
      setValues({ full_name: profile.full_name ?? "", country: profile.country ?? "", whatsapp_number: profile.whatsapp_number ?? "", student_role: profile.student_role ?? "debutant" });
  }, [profile]);
  if (!user) return null;
  if (!profile)
    return (
      <Card>
        <CardContent className="text-muted-foreground py-6 text-sm">
          {profileError ? (
            <span role="alert" className="flex flex-wrap items-center gap-3">
              <span className="text-destructive">Impossible de charger votre profil.</span>
              <Button variant="outline" size="sm" onClick={() => void refreshProfile()}>
                Réessayer
              </Button>
            </span>
          ) : (
            "Chargement du profil..."
          )}
        </CardContent>
      </Card>
    );

  // The database's bounds, said while typing; the form is not sent over them.
  const over = { full_name: tooLong("fullName", values.full_name), country: tooLong("country", values.country), whatsapp_number: tooLong("whatsapp", values.whatsapp_number) };
  const invalid = Object.values(over).some(Boolean);
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    if (invalid) return;
    try {
      await update.mutateAsync(values);
      toast.success("Profil mis à jour avec succès");
    } catch (err) {
      toast.error("Erreur lors de la mise à jour du profil", { description: err instanceof TextLimitError ? err.message : undefined });
    }
  };
  const set = (k: keyof typeof values) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setValues((v) => ({ ...v, [k]: e.target.value }));

  return (
    <Card>
      <CardHeader>
        <CardTitle>Informations personnelles</CardTitle>
        <CardDescription>Mettez à jour vos informations. L'email ne peut pas être modifié.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={save} className="grid gap-4 sm:grid-cols-2">
          <FormField id="acc-email" label="Email">
            <Input id="acc-email" value={user.email ?? ""} disabled readOnly />
          </FormField>
          <FormField id="acc-name" label="Nom complet" error={over.full_name}>
            <Input id="acc-name" value={values.full_name} onChange={set("full_name")} autoComplete="name" {...fieldAria("acc-name", over.full_name)} />
          </FormField>
          <FormField id="acc-country" label="Pays" error={over.country}>
            <Input id="acc-country" value={values.country} onChange={set("country")} autoComplete="country-name" {...fieldAria("acc-country", over.country)} />
          </FormField>
          <FormField id="acc-whatsapp" label="Numéro WhatsApp" error={over.whatsapp_number}>
            <Input id="acc-whatsapp" type="tel" value={values.whatsapp_number} onChange={set("whatsapp_number")} {...fieldAria("acc-whatsapp", over.whatsapp_number)} />
          </FormField>
          <FormField id="acc-level" label="Niveau d'anglais">
            <NativeSelect id="acc-level" value={values.student_role} onChange={set("student_role")}>
              {STUDENT_LEVELS.map((l) => (
                <option key={l.value} value={l.value}>
                  {l.label}
                </option>
              ))}
            </NativeSelect>
          </FormField>
          <div className="flex items-end sm:justify-end">
            <Button type="submit" disabled={saving || invalid}>
              {saving && <Loader2Icon className="animate-spin" aria-hidden />} Enregistrer
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

function PasswordTab() {
  const form = useForm<NewPasswordValues>({ resolver: zodResolver(newPasswordSchema), defaultValues: { password: "", confirmPassword: "" } });
  const { errors, isSubmitting } = form.formState;
  const onSubmit = form.handleSubmit(async ({ password }) => {
    try {
      await updatePassword(password);
      form.reset();
      toast.success("Mot de passe mis à jour avec succès");
    } catch (e) {
      // The auth server's English is said in French (same password, weak password, ended session).
      const reason = passwordUpdateErrorMessage(e);
      toast.error("Erreur lors de la mise à jour du mot de passe", { description: reason === "Erreur lors de la mise à jour du mot de passe" ? undefined : reason });
    }
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle>Changer le mot de passe</CardTitle>
        <CardDescription>Au moins 6 caractères.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={onSubmit} noValidate className="grid max-w-md gap-4">
          <FormField id="new-password" label="Nouveau mot de passe" error={errors.password?.message}>
            <PasswordInput id="new-password" autoComplete="new-password" aria-invalid={!!errors.password} {...form.register("password")} />
          </FormField>
          <FormField id="confirm-password" label="Confirmer le mot de passe" error={errors.confirmPassword?.message}>
            <PasswordInput id="confirm-password" autoComplete="new-password" aria-invalid={!!errors.confirmPassword} {...form.register("confirmPassword")} />
          </FormField>
          <Button type="submit" className="w-fit" disabled={isSubmitting}>
            {isSubmitting && <Loader2Icon className="animate-spin" aria-hidden />} Mettre à jour
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}

function SubscriptionTab() {
  const { profile } = useAuth();
  if (!profile) return null;
  const status = subscriptionStatus(profile.paid, profile.expire_date);
  const variant = status.kind === "active" || status.kind === "unlimited" ? "success" : status.kind === "expired" ? "destructive" : "secondary";
  const banner = status.kind === "unpaid" ? "Vous n'avez pas encore effectué de paiement." : status.kind === "expired" ? "Votre abonnement a expiré." : status.banner;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Abonnement</CardTitle>
        <CardDescription>Le statut de votre abonnement et sa date d'expiration.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {banner && (
          <Alert variant={status.kind === "active" ? "warning" : "destructive"}>
            <AlertTriangleIcon aria-hidden />
            <AlertDescription>{banner}</AlertDescription>
          </Alert>
        )}
        <dl className="grid gap-4 sm:grid-cols-2">
          <div className="rounded-lg border p-4">
            <dt className="text-muted-foreground text-xs uppercase">Statut</dt>
            <dd className="mt-1">
              <Badge variant={variant} data-testid="subscription-status">{status.label}</Badge>
            </dd>
          </div>
          <div className="rounded-lg border p-4">
            <dt className="text-muted-foreground text-xs uppercase">Jours restants</dt>
            <dd className="mt-1 font-semibold">{status.kind === "active" ? status.daysLabel : status.kind === "unlimited" ? "Illimité" : status.kind === "expired" ? status.daysLabel : "—"}</dd>
          </div>
          <div className="rounded-lg border p-4">
            <dt className="text-muted-foreground text-xs uppercase">Date de paiement</dt>
            <dd className="mt-1 font-semibold">{formatDateFr(profile.date_paid) || "—"}</dd>
          </div>
          <div className="rounded-lg border p-4">
            <dt className="text-muted-foreground text-xs uppercase">Date d'expiration</dt>
            <dd className="mt-1 font-semibold">{status.expiresOn ?? (profile.paid ? "Illimité" : "—")}</dd>
          </div>
        </dl>
      </CardContent>
    </Card>
  );
}
