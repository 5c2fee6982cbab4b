import * as React from "react";
import { toast } from "sonner";
import { Loader2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Checkbox } from "@/components/ui/checkbox";
import { Label } from "@/components/ui/label";
import { NativeSelect } from "@/components/ui/native-select";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { FormField, fieldAria } from "@/components/form-field";
import { STUDENT_LEVELS } from "@/features/auth";
import { subscriptionStatus, type SubscriptionStatus } from "@/features/profile";
import { useUpdateUser } from "@/features/admin/hooks/use-users";
import { paymentPatch, toDateInput, userEditPatch } from "@/features/admin/lib/users";
import { errorText } from "@/features/admin/lib/errors";
import { ConfirmDialog } from "@/features/admin/components/confirm-dialog";
import { formatDateFr } from "@/lib/format";
import { tooLong } from "@/lib/text-limits";
import type { Profile } from "@/types/db";

interface DialogProps {
  user: Profile;
  onClose: () => void;
}

const displayName = (u: Profile) => u.full_name || u.email || "cet utilisateur";

export function EditUserDialog({ user, onClose }: DialogProps) {
  const [values, setValues] = React.useState({
    full_name: user.full_name ?? "",
    country: user.country ?? "",
    whatsapp_number: user.whatsapp_number ?? "",
    student_role: user.student_role ?? "debutant",
    agent: !!user.agent,
  });
  const update = useUpdateUser(user.id);
  const busy = update.isPending;
  const set = (k: keyof typeof values) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setValues((v) => ({ ...v, [k]: e.target.value }));

  // The database's bounds, said while typing; the form is not sent over them.
  const over = { full_name: tooLong("fullName", values.full_name), country: tooLong("country", values.country), whatsapp_number: tooLong("whatsapp", values.whatsapp_number) };
  const invalid = Object.values(over).some(Boolean);

  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    if (invalid) return;
    try {
      await update.mutateAsync(userEditPatch(values));
      toast.success("Succès", { description: "Le profil de l'utilisateur a été mis à jour." });
      onClose();
    } catch (error) {
      toast.error("Erreur", { description: errorText(error, "Impossible de mettre à jour l'utilisateur.") });
    }
  };

  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Modifier l'utilisateur</DialogTitle>
          <DialogDescription>{user.email}</DialogDescription>
        </DialogHeader>
        <form className="grid gap-4" onSubmit={save}>
          <FormField id="edit-name" label="Nom complet" error={over.full_name}>
            <Input id="edit-name" value={values.full_name} onChange={set("full_name")} {...fieldAria("edit-name", over.full_name)} />
          </FormField>
          <FormField id="edit-country" label="Pays" error={over.country}>
            <Input id="edit-country" value={values.country} onChange={set("country")} {...fieldAria("edit-country", over.country)} />
          </FormField>
          <FormField id="edit-whatsapp" label="Numéro WhatsApp" error={over.whatsapp_number}>
            <Input id="edit-whatsapp" value={values.whatsapp_number} onChange={set("whatsapp_number")} {...fieldAria("edit-whatsapp", over.whatsapp_number)} />
          </FormField>
          <FormField id="edit-level" label="Niveau">
            <NativeSelect id="edit-level" value={values.student_role} onChange={set("student_role")}>
              {STUDENT_LEVELS.map((l) => (
                <option key={l.value} value={l.value}>
                  {l.label}
                </option>
              ))}
            </NativeSelect>
          </FormField>
          <div className="flex items-center gap-2">
            <Checkbox id="edit-agent" checked={values.agent} onCheckedChange={(c) => setValues((v) => ({ ...v, agent: c === true }))} />
            <Label htmlFor="edit-agent">Agent</Label>
          </div>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose}>
              Annuler
            </Button>
            <Button type="submit" disabled={busy || invalid}>
              {busy && <Loader2Icon className="animate-spin" aria-hidden />} Enregistrer
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

function StatusBlock({ status }: { status: SubscriptionStatus }) {
  return (
    <div className="grid gap-3">
      <div className="bg-muted grid grid-cols-2 gap-3 rounded-lg p-3 text-sm">
        <div>
          <p className="text-muted-foreground text-xs">Statut</p>
          <p className="font-semibold" data-testid="payment-status">{status.label}</p>
        </div>
        <div>
          <p className="text-muted-foreground text-xs">{status.kind === "expired" ? "Depuis l'expiration" : "Jours restants"}</p>
          <p className="font-semibold">{status.daysLabel}</p>
        </div>
      </div>
      {status.banner && (
        <Alert variant={status.kind === "active" ? "warning" : "destructive"}>
          <AlertDescription>{status.banner}</AlertDescription>
        </Alert>
      )}
    </div>
  );
}

export function PaymentDialog({ user, onClose }: DialogProps) {
  const [paid, setPaid] = React.useState(!!user.paid);
  const [datePaid, setDatePaid] = React.useState(toDateInput(user.date_paid));
  const [expireDate, setExpireDate] = React.useState(toDateInput(user.expire_date));
  const update = useUpdateUser(user.id);
  const busy = update.isPending;
  const patch = paymentPatch(paid, datePaid, expireDate);
  const status = subscriptionStatus(patch.paid, patch.expire_date);

  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    try {
      await update.mutateAsync(patch);
      toast.success("Succès", { description: "Le paiement a été mis à jour." });
      onClose();
    } catch (error) {
      toast.error("Erreur", { description: errorText(error, "Impossible de mettre à jour le paiement.") });
    }
  };

  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Paiement de {displayName(user)}</DialogTitle>
          <DialogDescription>Statut du paiement et date d'expiration de l'abonnement.</DialogDescription>
        </DialogHeader>
        <form className="grid gap-4" onSubmit={save}>
          <div className="flex items-center gap-2">
            <Checkbox id="pay-paid" checked={paid} onCheckedChange={(c) => setPaid(c === true)} />
            <Label htmlFor="pay-paid">Payé</Label>
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField id="pay-date" label="Date de paiement">
              <Input id="pay-date" type="date" value={datePaid} disabled={!paid} onChange={(e) => setDatePaid(e.target.value)} />
            </FormField>
            <FormField id="pay-expire" label="Date d'expiration" hint="Vide : sans limite">
              <Input id="pay-expire" type="date" value={expireDate} disabled={!paid} onChange={(e) => setExpireDate(e.target.value)} />
            </FormField>
          </div>
          <StatusBlock status={status} />
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose}>
              Annuler
            </Button>
            <Button type="submit" disabled={busy}>
              {busy && <Loader2Icon className="animate-spin" aria-hidden />} Enregistrer le paiement
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

export function PaymentInfoDialog({ user, onClose }: DialogProps) {
  const status = subscriptionStatus(user.paid, user.expire_date);
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Informations de paiement</DialogTitle>
          <DialogDescription>{displayName(user)}</DialogDescription>
        </DialogHeader>
        <dl className="grid grid-cols-2 gap-3 text-sm">
          <dt className="text-muted-foreground">Date de paiement</dt>
          <dd>{formatDateFr(user.date_paid) || "—"}</dd>
          <dt className="text-muted-foreground">Date d'expiration</dt>
          <dd>{status.expiresOn ?? (user.paid ? "Illimité" : "—")}</dd>
        </dl>
        <StatusBlock status={status} />
        <DialogFooter>
          <Button variant="outline" onClick={onClose}>
            Fermer
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

export function RoleDialog({ user, onClose, kind }: DialogProps & { kind: "promote" | "demote" }) {
  const promote = kind === "promote";
  const update = useUpdateUser(user.id);
  const confirm = async () => {
    try {
      await update.mutateAsync({ role: promote ? "admin" : "user" });
      toast.success("Succès", { description: promote ? `${displayName(user)} est maintenant administrateur.` : `${displayName(user)} n'est plus administrateur.` });
    } catch (error) {
      toast.error("Erreur", { description: errorText(error, promote ? "Impossible de promouvoir cet utilisateur." : "Impossible de rétrograder cet utilisateur.") });
    } finally {
      onClose();
    }
  };
  return (
    <ConfirmDialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={promote ? "Promouvoir en administrateur ?" : "Rétrograder en utilisateur ?"}
      description={
        promote
          ? `${displayName(user)} aura accès à tout le back-office : utilisateurs, paiements, cours, livres et sessions.`
          : `${displayName(user)} perdra l'accès au back-office et redeviendra un utilisateur.`
      }
      confirmLabel={promote ? "Promouvoir" : "Rétrograder"}
      destructive={!promote}
      onConfirm={() => void confirm()}
    />
  );
}
