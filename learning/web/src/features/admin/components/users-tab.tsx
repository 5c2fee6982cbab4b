import * as React from "react";
import { EllipsisVerticalIcon, MessageCircleIcon, UsersIcon, CreditCardIcon, ShieldIcon, ClockIcon } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { NativeSelect } from "@/components/ui/native-select";
import { Popover, PopoverContent, PopoverTrigger } from "@/components/ui/popover";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { SearchInput } from "@/components/search-input";
import { EmptyState, PageSpinner } from "@/components/layout/page-states";
import { STUDENT_LEVELS } from "@/features/auth";
import { whatsappLink } from "@/features/contact";
import { subscriptionStatus } from "@/features/profile";
import { emptyUsersText, filterUsers, NO_FILTERS, userStats, type PaidFilter, type RoleFilter, type UserFilters } from "@/features/admin/lib/users";
import { EditUserDialog, PaymentDialog, PaymentInfoDialog, RoleDialog } from "@/features/admin/components/user-dialogs";
import { AccessDialog } from "@/features/admin/components/access-dialog";
import { useWide } from "@/features/admin/hooks/use-wide";
import { useAdminUsers } from "@/features/admin/hooks/use-users";
import { formatDateFr } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { Profile } from "@/types/db";

type DialogKind = "edit" | "access" | "payment" | "payment-info" | "promote" | "demote";

export function UsersTab() {
  const { users, withAccess, error } = useAdminUsers();
  const [filters, setFilters] = React.useState<UserFilters>(NO_FILTERS);
  const [expanded, setExpanded] = React.useState<string | null>(null);
  const [dialog, setDialog] = React.useState<{ kind: DialogKind; user: Profile } | null>(null);

  const visible = React.useMemo(() => filterUsers(users ?? [], filters), [users, filters]);
  const stats = React.useMemo(() => userStats(users ?? []), [users]);
  const empty = emptyUsersText(filters);
  const wide = useWide();
  const open = (kind: DialogKind, user: Profile) => setDialog({ kind, user });
  const close = () => setDialog(null);

  return (
    <div className="space-y-6">
      <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        <StatCard icon={<UsersIcon aria-hidden />} label="Utilisateurs" value={stats.total} />
        <StatCard icon={<CreditCardIcon aria-hidden />} label="Payés" value={stats.paid} />
        <StatCard icon={<ShieldIcon aria-hidden />} label="Administrateurs" value={stats.admins} />
        <StatCard icon={<ClockIcon aria-hidden />} label="Expirent bientôt" value={stats.expiringSoon} />
      </div>

      <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
        <SearchInput value={filters.search} onChange={(search) => setFilters((f) => ({ ...f, search }))} placeholder="Rechercher un utilisateur..." />
        <div className="grid grid-cols-1 gap-3 min-[400px]:grid-cols-2 sm:flex">
          <NativeSelect aria-label="Filtrer par paiement" value={filters.paid} onChange={(e) => setFilters((f) => ({ ...f, paid: e.target.value as PaidFilter }))}>
            <option value="all">Tous les paiements</option>
            <option value="paid">Payés</option>
            <option value="unpaid">Non payés</option>
          </NativeSelect>
          <NativeSelect aria-label="Filtrer par rôle" value={filters.role} onChange={(e) => setFilters((f) => ({ ...f, role: e.target.value as RoleFilter }))}>
            <option value="all">Tous les rôles</option>
            <option value="admin">Administrateurs</option>
            <option value="user">Utilisateurs</option>
          </NativeSelect>
        </div>
      </div>

      {error ? (
        <p className="text-destructive rounded-lg border border-destructive/30 bg-destructive/5 p-4 text-sm" role="alert" data-testid="users-error">
          {error}
        </p>
      ) : users === null ? (
        <PageSpinner label="Chargement des utilisateurs..." />
      ) : visible.length === 0 ? (
        <EmptyState icon={<UsersIcon className="size-8" aria-hidden />} title={empty.title}>
          {empty.hint && <p className="text-sm">{empty.hint}</p>}
        </EmptyState>
      ) : (
        <div className="rounded-xl border">
          <Table>
            <TableHeader>
              <TableRow>
                <TableHead className="w-12 sm:w-14">Accès</TableHead>
                <TableHead>Nom</TableHead>
                {wide && <TableHead>Email</TableHead>}
                <TableHead className="hidden md:table-cell">Pays</TableHead>
                {wide && <TableHead>Payé</TableHead>}
                <TableHead className="text-right">Actions</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {visible.map((u) => (
                <UserRow
                  key={u.id}
                  user={u}
                  wide={wide}
                  hasAccess={u.role === "admin" || withAccess.has(u.id)}
                  expanded={expanded === u.id}
                  onToggle={() => setExpanded((id) => (id === u.id ? null : u.id))}
                  onAction={(kind) => open(kind, u)}
                />
              ))}
            </TableBody>
          </Table>
        </div>
      )}

      {dialog?.kind === "edit" && <EditUserDialog user={dialog.user} onClose={close} />}
      {dialog?.kind === "payment" && <PaymentDialog user={dialog.user} onClose={close} />}
      {dialog?.kind === "payment-info" && <PaymentInfoDialog user={dialog.user} onClose={close} />}
      {(dialog?.kind === "promote" || dialog?.kind === "demote") && <RoleDialog kind={dialog.kind} user={dialog.user} onClose={close} />}
      {dialog?.kind === "access" && <AccessDialog userId={dialog.user.id} onClose={close} />}
    </div>
  );
}

function StatCard({ icon, label, value }: { icon: React.ReactNode; label: string; value: number }) {
  return (
    <Card className="gap-2 py-4">
      <CardHeader className="flex flex-row items-center justify-between gap-2 px-4">
        <CardTitle className="text-muted-foreground text-sm font-medium">{label}</CardTitle>
        <span className="text-primary [&_svg]:size-4">{icon}</span>
      </CardHeader>
      <CardContent className="px-4">
        <p className="text-2xl font-bold" data-testid={`stat-${label}`}>{value}</p>
      </CardContent>
    </Card>
  );
}

/** One user; below 640 px the email and payment status stack under the name (no Payé column). */
function UserRow({ user, wide, hasAccess, expanded, onToggle, onAction }: { user: Profile; wide: boolean; hasAccess: boolean; expanded: boolean; onToggle: () => void; onAction: (kind: DialogKind) => void }) {
  const status = subscriptionStatus(user.paid, user.expire_date);
  const statusBadge = (
    <Badge variant={status.kind === "active" || status.kind === "unlimited" ? "success" : status.kind === "expired" ? "destructive" : "secondary"} data-testid="user-status">
      {status.label}
    </Badge>
  );
  const level = STUDENT_LEVELS.find((l) => l.value === user.student_role)?.label ?? "student";
  const isAdmin = user.role === "admin";
  return (
    <>
      <TableRow data-testid="user-row" data-email={user.email ?? ""} className="cursor-pointer" onClick={onToggle}>
        <TableCell>
          <span className={cn("inline-block size-2.5 rounded-full", hasAccess ? "bg-emerald-600" : "bg-muted-foreground/40")} title={hasAccess ? "A des accès" : "Aucun accès"} />
          <span className="sr-only">{hasAccess ? "A des accès" : "Aucun accès"}</span>
        </TableCell>
        {/* Narrow: the name cell takes the width left and truncates the email instead of widening the table. */}
        <TableCell className={cn("font-medium", !wide && "w-full max-w-0")}>
          <div className="flex flex-wrap items-center gap-1.5">
            <button type="button" className="text-left hover:underline" aria-expanded={expanded} onClick={(e) => { e.stopPropagation(); onToggle(); }}>
              {user.full_name || "Sans nom"}
            </button>
            {isAdmin && <Badge>Admin</Badge>}
            {user.agent && <Badge variant="warning">Agent</Badge>}
          </div>
          {!wide && (
            <>
              <p className="text-muted-foreground truncate text-xs font-normal">{user.email}</p>
              <div className="mt-1">{statusBadge}</div>
            </>
          )}
        </TableCell>
        {wide && <TableCell className="max-w-48 truncate">{user.email}</TableCell>}
        <TableCell className="hidden md:table-cell">{user.country}</TableCell>
        {wide && <TableCell>{statusBadge}</TableCell>}
        <TableCell className="text-right" onClick={(e) => e.stopPropagation()}>
          <div className="flex items-center justify-end gap-1">
            {user.whatsapp_number && (
              <Button asChild variant="ghost" size="icon" className="text-emerald-700">
                <a href={whatsappLink(user.whatsapp_number)} target="_blank" rel="noopener noreferrer" aria-label={`WhatsApp de ${user.full_name || user.email}`}>
                  <MessageCircleIcon aria-hidden />
                </a>
              </Button>
            )}
            <Popover>
              <PopoverTrigger asChild>
                <Button variant="ghost" size="icon" aria-label={`Actions pour ${user.full_name || user.email}`}>
                  <EllipsisVerticalIcon aria-hidden />
                </Button>
              </PopoverTrigger>
              <PopoverContent className="w-48">
                <div className="flex flex-col" role="menu">
                  {(
                    [
                      ["edit", "Éditer"],
                      ["access", "Accès"],
                      ["payment", "Paiement"],
                      ["payment-info", "Infos paiement"],
                      isAdmin ? ["demote", "Rétrograder"] : ["promote", "Promouvoir"],
                    ] as Array<[DialogKind, string]>
                  ).map(([kind, label]) => (
                    <Button key={kind} role="menuitem" variant="ghost" size="sm" className="justify-start" onClick={() => onAction(kind)}>
                      {label}
                    </Button>
                  ))}
                </div>
              </PopoverContent>
            </Popover>
          </div>
        </TableCell>
      </TableRow>
      {expanded && (
        <TableRow className="hover:bg-transparent">
          <TableCell colSpan={6} className="bg-muted/30 p-2 sm:p-3">
            <div className="grid gap-3 md:grid-cols-3" data-testid="user-details">
              <DetailCard title="Informations personnelles" rows={[["Nom", user.full_name], ["Niveau", level], ["Rôle", isAdmin ? "Administrateur" : "Utilisateur"], ["Inscrit le", formatDateFr(user.created_at)], ["Abonnement", status.label]]} />
              <DetailCard title="Localisation" rows={[["Pays", user.country]]} />
              <DetailCard title="Contact" rows={[["Email", user.email], ["WhatsApp", user.whatsapp_number]]} />
            </div>
          </TableCell>
        </TableRow>
      )}
    </>
  );
}

function DetailCard({ title, rows }: { title: string; rows: Array<[string, string | null | undefined]> }) {
  return (
    <Card className="gap-3 py-4">
      <CardHeader className="px-4">
        <CardTitle className="text-sm">{title}</CardTitle>
      </CardHeader>
      <CardContent className="px-4">
        <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
          {rows.map(([k, v]) => (
            <React.Fragment key={k}>
              <dt className="text-muted-foreground">{k}</dt>
              <dd className="min-w-0 break-words">{v || "—"}</dd>
            </React.Fragment>
          ))}
        </dl>
      </CardContent>
    </Card>
  );
}
