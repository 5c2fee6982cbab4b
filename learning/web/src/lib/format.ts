import { format } from "date-fns";
import { fr } from "date-fns/locale";

const oneDecimal = (n: number) => n.toFixed(1).replace(".", ",");

/** 1024-based size in French units: o, Ko, Mo (Go when allowed), one decimal with a comma. */
export function formatFileSize(bytes: number | null | undefined, opts: { gigabytes?: boolean } = {}): string {
  if (bytes == null || !Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes < 1024) return `${bytes} o`;
  const kb = bytes / 1024;
  if (kb < 1024) return `${oneDecimal(kb)} Ko`;
  const mb = kb / 1024;
  if (mb < 1024 || !opts.gigabytes) return `${oneDecimal(mb)} Mo`;
  return `${oneDecimal(mb / 1024)} Go`;
}

/** French date with day, short month, year, hour and minute: "5 mars 2025 à 14:07". */
export function formatDateTimeFr(value: string | Date | null | undefined): string {
  if (!value) return "";
  const date = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return "";
  return format(date, "d MMM yyyy 'à' HH:mm", { locale: fr });
}

/** French date without time: "5 mars 2025". */
export function formatDateFr(value: string | Date | null | undefined): string {
  if (!value) return "";
  const date = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return "";
  return format(date, "d MMM yyyy", { locale: fr });
}

/** Case-insensitive substring match on title or description (books and courses search). */
export function matchesSearch(item: { title?: string | null; description?: string | null }, term: string): boolean {
  const needle = term.trim().toLowerCase();
  if (!needle) return true;
  return (item.title ?? "").toLowerCase().includes(needle) || (item.description ?? "").toLowerCase().includes(needle);
}

/** Digits of a phone number, for wa.me links. */
export function phoneDigits(phone: string | null | undefined): string {
  return (phone ?? "").replace(/\D/g, "");
}
