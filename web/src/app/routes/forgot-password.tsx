import * as React from "react";
import { Link, useNavigate } from "react-router-dom";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { toast } from "sonner";
import { AlertCircleIcon, Loader2Icon, MailCheckIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { FormField } from "@/components/form-field";
import { AuthCard } from "@/features/auth/components/auth-card";
import { PasswordInput } from "@/features/auth/components/password-input";
import { newPasswordSchema, recoverSchema, type NewPasswordValues } from "@/features/auth/lib/schemas";
import { onAuthChange, requestPasswordReset, updatePassword } from "@/features/auth/api/auth";
import { useAuth } from "@/features/auth/hooks/auth-context";
import { recoveryLinkOpened } from "@/lib/recovery";
import { useDocumentTitle } from "@/lib/use-document-title";

export default function ForgotPassword() {
  useDocumentTitle("Mot de passe oublié");
  const { user } = useAuth();
  const [recovering, setRecovering] = React.useState(recoveryLinkOpened);
  React.useEffect(() => onAuthChange((event) => event === "PASSWORD_RECOVERY" && setRecovering(true)), []);
  return recovering && user ? <NewPasswordForm /> : <RequestForm />;
}

function RequestForm() {
  const [sentTo, setSentTo] = React.useState<string | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  const form = useForm<{ email: string }>({ resolver: zodResolver(recoverSchema), defaultValues: { email: "" } });
  const { errors, isSubmitting } = form.formState;
  const onSubmit = form.handleSubmit(async ({ email }) => {
    setError(null);
    try {
      await requestPasswordReset(email);
      setSentTo(email);
    } catch (e) {
      setError(e instanceof Error && e.message ? e.message : "Une erreur s'est produite. Veuillez réessayer.");
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
            Si un compte existe pour <strong>{sentTo}</strong>, un email de réinitialisation vient d'être envoyé. Ouvrez le lien qu'il contient pour choisir un nouveau mot de passe.
          </AlertDescription>
        </Alert>
      ) : (
        <>
          {error && (
            <Alert variant="destructive">
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

function NewPasswordForm() {
  const navigate = useNavigate();
  const form = useForm<NewPasswordValues>({ resolver: zodResolver(newPasswordSchema), defaultValues: { password: "", confirmPassword: "" } });
  const { errors, isSubmitting } = form.formState;
  const onSubmit = form.handleSubmit(async ({ password }) => {
    try {
      await updatePassword(password);
      toast.success("Mot de passe mis à jour avec succès");
      navigate("/", { replace: true });
    } catch (e) {
      toast.error("Erreur lors de la mise à jour du mot de passe", { description: e instanceof Error ? e.message : undefined });
    }
  });
  return (
    <AuthCard title="Nouveau mot de passe" description="Choisissez votre nouveau mot de passe.">
      <form onSubmit={onSubmit} noValidate className="space-y-4">
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
      </form>
    </AuthCard>
  );
}
