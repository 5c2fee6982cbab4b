import * as React from "react";
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from "react-router-dom";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { toast } from "sonner";
import { AlertCircleIcon, Loader2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { FormField } from "@/components/form-field";
import { AuthCard, MAX_SESSIONS_MESSAGE, PasswordInput, loginSchema, type LoginValues, safeNextPath, signInErrorMessage, useAuth, withNext } from "@/features/auth";
import { DeviceLimitHelp, signInAndRecordDevice } from "@/features/sessions";
import { useDocumentTitle } from "@/lib/use-document-title";

export default function Login() {
  useDocumentTitle("Connexion");
  const navigate = useNavigate();
  const location = useLocation();
  const [searchParams] = useSearchParams();
  const next = safeNextPath(searchParams.get("next")); // where the user was going (a course page...)
  const { user, loading } = useAuth();
  const [error, setError] = React.useState<string | null>((location.state as { error?: string } | null)?.error ?? null);
  const busyRef = React.useRef(false);
  const form = useForm<LoginValues>({ resolver: zodResolver(loginSchema), defaultValues: { email: "", password: "" } });
  const { isSubmitting, errors } = form.formState;
  const blankError = errors.email?.message || errors.password?.message;

  const onSubmit = form.handleSubmit(async (values) => {
    if (busyRef.current) return; // double submission blocked while busy
    busyRef.current = true;
    setError(null);
    try {
      await signInAndRecordDevice(values.email, values.password);
      toast.success("Connexion réussie", { description: "Vous êtes maintenant connecté" });
      navigate(next, { replace: true });
    } catch (e) {
      setError(e instanceof Error || (e && typeof e === "object" && "message" in e) ? signInErrorMessage(e) : "Une erreur s'est produite lors de la connexion");
    } finally {
      busyRef.current = false;
    }
  });

  if (!loading && user && !isSubmitting) return <Navigate to={next} replace />;

  return (
    <AuthCard
      title="Connexion"
      description="Connectez-vous pour accéder à vos livres et à vos cours."
      footer={
        <>
          Pas encore de compte ?{" "}
          <Link to={withNext("/inscription", next)} className="text-primary font-medium hover:underline">
            S'inscrire
          </Link>
        </>
      }
    >
      {(error || blankError) && (
        <Alert variant="destructive">
          <AlertCircleIcon aria-hidden />
          <AlertDescription>{error || blankError}</AlertDescription>
        </Alert>
      )}
      {error === MAX_SESSIONS_MESSAGE && <DeviceLimitHelp email={form.getValues("email")} />}
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        <FormField id="email" label="Email">
          <Input id="email" type="email" autoComplete="email" placeholder="vous@exemple.com" aria-invalid={!!errors.email} {...form.register("email")} />
        </FormField>
        <FormField id="password" label="Mot de passe">
          <PasswordInput id="password" autoComplete="current-password" aria-invalid={!!errors.password} {...form.register("password")} />
        </FormField>
        <div className="flex justify-end">
          <Link to="/mot-de-passe-oublie" className="text-primary text-sm hover:underline">
            Mot de passe oublié?
          </Link>
        </div>
        <Button type="submit" className="w-full" size="lg" disabled={isSubmitting}>
          {isSubmitting ? (
            <>
              <Loader2Icon className="animate-spin" aria-hidden /> Connexion en cours...
            </>
          ) : (
            "Se connecter"
          )}
        </Button>
      </form>
    </AuthCard>
  );
}
