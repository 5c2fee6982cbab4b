import * as React from "react";
import { Link, useLocation, useNavigate } from "react-router-dom";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { toast } from "sonner";
import { AlertCircleIcon, InfoIcon, Loader2Icon, MailCheckIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { FormField } from "@/components/form-field";
import { AuthCard, PasswordInput, newPasswordSchema, recoverSchema, type NewPasswordValues, mailLinkErrorMessage, passwordUpdateErrorMessage, recoveryRequestErrorMessage, onAuthChange, requestPasswordReset, updatePassword, useAuth } from "@/features/auth";
import { clearRecoveryPending, isRecoveryPending, mailLink, markRecoveryPending } from "@/lib/recovery";
import { useDocumentTitle } from "@/lib/use-document-title";

const LINK_LOST = "Ce lien n'a pas pu vous connecter : il a peut-être déjà été utilisé ou a expiré. Demandez-en un nouveau ci-dessous.";

/**
 * /mot-de-passe-oublie. Opening the mail's link lands here with the session in the URL
 * (read at start-up, lib/recovery.ts): the page then shows 'Nouveau mot de passe' from its
 * first paint, waiting for the session if supabase-js has not stored it yet; a failed link
 * shows why, in French, above the request form.
 */
export default function ForgotPassword() {
  useDocumentTitle("Mot de passe oublié");
  const { loading, user } = useAuth();
  const [pending, setPending] = React.useState(isRecoveryPending);
  React.useEffect(
    () =>
      onAuthChange((event) => {
        if (event !== "PASSWORD_RECOVERY") return;
        markRecoveryPending();
        setPending(true);
      }),
    [],
  );

  if (pending && (loading || user)) return <NewPasswordForm waiting={!user} sessionsEnded={mailLink.sessionsEnded} onDone={() => setPending(false)} />;
  const error = mailLink.errorCode ? mailLinkErrorMessage(mailLink.errorCode) : pending ? LINK_LOST : null;
  return <RequestForm linkError={error} />;
}

function RequestForm({ linkError }: { linkError: string | null }) {
  const [sentTo, setSentTo] = React.useState<string | null>(null);
  const [error, setError] = React.useState<string | null>(linkError);
  const typed = (useLocation().state as { email?: unknown } | null)?.email; // from the login page's device-limit help
  const form = useForm<{ email: string }>({ resolver: zodResolver(recoverSchema), defaultValues: { email: typeof typed === "string" ? typed : "" } });
  const { errors, isSubmitting } = form.formState;
  const onSubmit = form.handleSubmit(async ({ email }) => {
    setError(null);
    try {
      await requestPasswordReset(email);
      clearRecoveryPending();
      setSentTo(email);
    } catch (e) {
      setError(recoveryRequestErrorMessage(e));
    }
  });

  return (
    <AuthCard
      title="Mot de passe oublié"
      description="Indiquez votre email : nous vous enverrons un lien pour choisir un nouveau mot de passe."
      footer={
        <Link to="/connexion" className="text-primary font-medium hover:underline">
          Retour à la connexion
        </Link>
      }
    >
      {sentTo ? (
        <Alert variant="info">
          <MailCheckIcon aria-hidden />
          <AlertDescription>
            Si un compte existe pour <strong className="break-all">{sentTo}</strong>, un email de réinitialisation vient d'être envoyé. Ouvrez le lien qu'il contient pour choisir un nouveau
            mot de passe.
          </AlertDescription>
        </Alert>
      ) : (
        <>
          {error && (
            <Alert variant="destructive" data-testid="recovery-error">
              <AlertCircleIcon aria-hidden />
              <AlertDescription>{error}</AlertDescription>
            </Alert>
          )}
          <form onSubmit={onSubmit} noValidate className="space-y-4">
            <FormField id="email" label="Email" error={errors.email?.message}>
              <Input id="email" type="email" autoComplete="email" placeholder="vous@exemple.com" aria-invalid={!!errors.email} {...form.register("email")} />
            </FormField>
            <Button type="submit" className="w-full" size="lg" disabled={isSubmitting}>
              {isSubmitting ? <Loader2Icon className="animate-spin" aria-hidden /> : null}
              Envoyer le lien
            </Button>
          </form>
        </>
      )}
    </AuthCard>
  );
}

function NewPasswordForm({ waiting, sessionsEnded, onDone }: { waiting: boolean; sessionsEnded: number; onDone: () => void }) {
  const navigate = useNavigate();
  const form = useForm<NewPasswordValues>({ resolver: zodResolver(newPasswordSchema), defaultValues: { password: "", confirmPassword: "" } });
  const { errors, isSubmitting } = form.formState;
  const onSubmit = form.handleSubmit(async ({ password }) => {
    try {
      await updatePassword(password);
      clearRecoveryPending();
      onDone();
      toast.success("Mot de passe mis à jour avec succès");
      navigate("/", { replace: true });
    } catch (e) {
      toast.error("Erreur lors de la mise à jour du mot de passe", { description: passwordUpdateErrorMessage(e) });
    }
  });
  return (
    <AuthCard title="Nouveau mot de passe" description="Choisissez votre nouveau mot de passe.">
      {sessionsEnded > 0 && (
        <Alert variant="info" data-testid="sessions-ended">
          <InfoIcon aria-hidden />
          <AlertDescription>
            Votre compte était déjà connecté sur 2 appareils : pour vous connecter ici, la session de l'appareil utilisé le moins récemment a été terminée.
          </AlertDescription>
        </Alert>
      )}
      {waiting && (
        <p className="text-muted-foreground flex items-center gap-2 text-sm" role="status">
          <Loader2Icon className="size-4 animate-spin" aria-hidden /> Vérification du lien...
        </p>
      )}
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        <fieldset disabled={waiting} className="space-y-4">
          <FormField id="password" label="Nouveau mot de passe" error={errors.password?.message}>
            <PasswordInput id="password" autoComplete="new-password" aria-invalid={!!errors.password} {...form.register("password")} />
          </FormField>
          <FormField id="confirmPassword" label="Confirmer le mot de passe" error={errors.confirmPassword?.message}>
            <PasswordInput id="confirmPassword" autoComplete="new-password" aria-invalid={!!errors.confirmPassword} {...form.register("confirmPassword")} />
          </FormField>
          <Button type="submit" className="w-full" size="lg" disabled={isSubmitting}>
            {isSubmitting ? <Loader2Icon className="animate-spin" aria-hidden /> : null}
            Enregistrer le mot de passe
          </Button>
        </fieldset>
      </form>
    </AuthCard>
  );
}
