import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { toast } from "sonner";
import * as React from "react";
import { AlertCircleIcon, Loader2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { FormField } from "@/components/form-field";
import { AuthCard, PasswordInput, registerDefaults, registerSchema, STUDENT_LEVELS, type RegisterValues, safeNextPath, signUpErrorMessage, signUp, withNext } from "@/features/auth";
import { useDocumentTitle } from "@/lib/use-document-title";

export default function Register() {
  useDocumentTitle("Créer un compte");
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const next = safeNextPath(searchParams.get("next")); // where the user was going (a course page...)
  const [error, setError] = React.useState<string | null>(null);
  const form = useForm<RegisterValues>({ resolver: zodResolver(registerSchema), defaultValues: registerDefaults });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    setError(null);
    try {
      const session = await signUp(values, next); // the confirmation link comes back to `next`
      if (session) {
        toast.success("Inscription réussie");
        navigate(next, { replace: true });
      } else {
        // E-mail confirmations on (a production server's default): the account opens from the mail.
        toast.success("Inscription enregistrée : confirmez votre adresse avec le lien reçu par e-mail.");
        navigate(withNext("/connexion", next), { replace: true });
      }
    } catch (e) {
      setError(signUpErrorMessage(e));
    }
  });

  const field = (name: keyof RegisterValues) => ({
    id: name,
    "aria-invalid": !!errors[name],
    "aria-describedby": errors[name] ? `${name}-error` : undefined,
    ...form.register(name),
  });

  return (
    <AuthCard
      title="Créer un compte"
      description={
        <>
          Déjà inscrit ?{" "}
          <Link to={withNext("/connexion", next)} className="text-primary font-medium hover:underline">
            Se connecter
          </Link>
        </>
      }
    >
      {error && (
        <Alert variant="destructive">
          <AlertCircleIcon aria-hidden />
          <AlertDescription>{error}</AlertDescription>
        </Alert>
      )}
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        <FormField id="nom" label="Nom complet" error={errors.nom?.message}>
          <Input autoComplete="name" placeholder="Marie Dupont" {...field("nom")} />
        </FormField>
        <FormField id="email" label="Email" error={errors.email?.message}>
          <Input type="email" autoComplete="email" placeholder="vous@exemple.com" {...field("email")} />
        </FormField>
        <div className="grid gap-4 sm:grid-cols-2">
          <FormField id="country" label="Pays" error={errors.country?.message}>
            <Input autoComplete="country-name" placeholder="France" {...field("country")} />
          </FormField>
          <FormField id="whatsappNumber" label="Numéro WhatsApp" error={errors.whatsappNumber?.message}>
            <Input type="tel" autoComplete="tel" placeholder="+33 6 12 34 56 78" {...field("whatsappNumber")} />
          </FormField>
        </div>
        <FormField id="studentLevel" label="Niveau d'anglais" error={errors.studentLevel?.message}>
          <NativeSelect {...field("studentLevel")}>
            {STUDENT_LEVELS.map((l) => (
              <option key={l.value} value={l.value}>
                {l.label}
              </option>
            ))}
          </NativeSelect>
        </FormField>
        <FormField id="password" label="Mot de passe" error={errors.password?.message} hint="Au moins 6 caractères">
          <PasswordInput autoComplete="new-password" {...field("password")} />
        </FormField>
        <FormField id="confirmPassword" label="Confirmer le mot de passe" error={errors.confirmPassword?.message}>
          <PasswordInput autoComplete="new-password" {...field("confirmPassword")} />
        </FormField>
        <Button type="submit" className="w-full" size="lg" disabled={isSubmitting}>
          {isSubmitting ? (
            <>
              <Loader2Icon className="animate-spin" aria-hidden /> Inscription en cours...
            </>
          ) : (
            "S'inscrire"
          )}
        </Button>
      </form>
    </AuthCard>
  );
}
