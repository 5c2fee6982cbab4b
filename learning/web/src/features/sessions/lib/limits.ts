// The server's device rules, as the site runs it (Makefile's `run`, docker-compose.yml, the e2e
// server): SUPALITE_AUTH_MAX_SESSIONS=2, SUPALITE_AUTH_SESSIONS_INACTIVITY_TIMEOUT=168h and
// SUPALITE_AUTH_SESSIONS_TIMEBOX=720h. The interface states them; the server enforces them.
export const MAX_DEVICES = 2;
export const IDLE_DAYS = 7;
export const MAX_SESSION_DAYS = 30;
