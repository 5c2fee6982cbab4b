// What a mail link brought in the URL, read at start-up before supabase-js consumes it (it
// clears the fragment once it has taken the session), so the recovery page never depends on
// when it is loaded relative to supabase-js.

export interface MailLink {
  /** A password-recovery link was opened (type=recovery). */
  recovery: boolean;
  /** A failed link: GoTrue's error_code (else its error), null when the link worked. */
  errorCode: string | null;
  /** Sessions the server ended to make room for this one at the device limit. */
  sessionsEnded: number;
}

const PENDING_KEY = "recovery_pending";

export function readMailLink(hash: string, search: string): MailLink {
  const params = new URLSearchParams(search.replace(/^\?/, ""));
  new URLSearchParams(hash.replace(/^#/, "")).forEach((value, key) => params.set(key, value));
  const error = params.get("error_code") || params.get("error");
  const ended = Number.parseInt(params.get("sessions_ended") ?? "", 10);
  return {
    recovery: params.get("type") === "recovery",
    errorCode: error ? error.slice(0, 64) : null,
    sessionsEnded: Number.isFinite(ended) && ended > 0 ? ended : 0,
  };
}

const EMPTY: MailLink = { recovery: false, errorCode: null, sessionsEnded: 0 };

export const mailLink: MailLink = typeof window === "undefined" ? EMPTY : readMailLink(window.location.hash, window.location.search);

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.sessionStorage;
  } catch {
    return null;
  }
}

/** The user came in through a recovery link and has not chosen a new password yet (this tab). */
export function isRecoveryPending(): boolean {
  return storage()?.getItem(PENDING_KEY) === "1";
}

export function markRecoveryPending(): void {
  storage()?.setItem(PENDING_KEY, "1");
}

export function clearRecoveryPending(): void {
  storage()?.removeItem(PENDING_KEY);
}

if (mailLink.errorCode) clearRecoveryPending();
else if (mailLink.recovery) markRecoveryPending();
