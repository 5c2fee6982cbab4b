// The site's one date rule for subscriptions, pure and independent of the browser's zone.
//
// An expiry is a calendar day in Europe/Paris (the teacher's zone): the admin picks a day, it
// is stored as the last instant of that day in Paris, and the subscription stays active
// through the end of that day. So, counted in Paris calendar days from today:
//   expiry after today -> active, "n jours" remaining (June 30 seen on June 10: 20 jours);
//   expiry today       -> still active, its last day ("Expire aujourd'hui");
//   expiry before today -> expired, n days ago.
// A stored instant that is not an end of day (older rows, the seed) counts by its Paris day.
//
// The database grants access from course_access, user_book_access and full_access_users rows
// only: no policy or function reads expire_date, so this rule is the only one there is and the
// screens (account, admin users list and dialogs) all take it from here.

export const SITE_TIME_ZONE = "Europe/Paris";
const DAY_MS = 86_400_000;

const dayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: SITE_TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit" });
const wallFormat = new Intl.DateTimeFormat("en-US", {
  timeZone: SITE_TIME_ZONE,
  hourCycle: "h23",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
const frenchDay = new Intl.DateTimeFormat("fr-FR", { timeZone: SITE_TIME_ZONE, day: "numeric", month: "short", year: "numeric" });

/** The Paris calendar day of an instant: "2025-06-30". */
export function parisDay(instant: Date): string {
  return dayFormat.format(instant);
}

/** Days since 1970-01-01 of a "YYYY-MM-DD" day (calendar arithmetic, no zone). */
function dayNumber(day: string): number {
  const [y, m, d] = day.split("-").map(Number);
  return Math.round(Date.UTC(y, m - 1, d) / DAY_MS);
}

/** Paris calendar days from `now`'s day to `expiry`'s day: 0 today, 1 tomorrow, -1 yesterday. */
export function daysUntilExpiry(expiry: Date, now: Date): number {
  return dayNumber(parisDay(expiry)) - dayNumber(parisDay(now));
}

/** How far Paris wall time is ahead of UTC at an instant, in ms (+1 h in winter, +2 h in summer). */
function parisOffset(instant: number): number {
  const parts = Object.fromEntries(wallFormat.formatToParts(instant).map((p) => [p.type, p.value]));
  const wall = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return wall - Math.floor(instant / 1000) * 1000;
}

/** The first instant of a Paris day (clocks change at 02:00/03:00, never at midnight). */
function startOfParisDay(day: string): number {
  const [y, m, d] = day.split("-").map(Number);
  const midnightUtc = Date.UTC(y, m - 1, d);
  return midnightUtc - parisOffset(midnightUtc);
}

function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(dayNumber(value));
}

/** A date input's day as the instant stored for an expiry: the last millisecond of that day in Paris. */
export function expiryInstant(day: string): string | null {
  if (!isDay(day)) return null;
  return new Date(startOfParisDay(nextDay(day)) - 1).toISOString();
}

/** A date input's day as the instant stored for a payment date: the start of that day in Paris. */
export function dayStartInstant(day: string): string | null {
  if (!isDay(day)) return null;
  return new Date(startOfParisDay(day)).toISOString();
}

function nextDay(day: string): string {
  return new Date((dayNumber(day) + 1) * DAY_MS).toISOString().slice(0, 10);
}

/** A stored instant as the Paris day a date input shows ("" when none). */
export function dateInputValue(value: string | null | undefined): string {
  if (!value) return "";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? "" : parisDay(date);
}

/** A stored instant as its Paris day in French: "30 juin 2025" ("" when none). */
export function frenchParisDay(value: string | null | undefined): string {
  if (!value) return "";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? "" : frenchDay.format(date);
}
