// Runtime configuration: /config.js (served by supalite) sets window.__SUPALITE__ before
// the app loads, so one build works on every host. Optional keys override the product
// constants below (owner account, designated administrator, teacher's messaging number).
export interface RuntimeConfig {
  supabaseUrl: string;
  supabaseAnonKey: string;
  ownerEmail?: string;
  contactAdminEmail?: string;
  contactPhone?: string;
  contactEmail?: string;
}

declare global {
  interface Window {
    __SUPALITE__?: Partial<RuntimeConfig>;
  }
}

function runtime(): Partial<RuntimeConfig> {
  return (typeof window !== "undefined" && window.__SUPALITE__) || {};
}

export const SITE_NAME = "English Facile";

export const appConfig = {
  get supabaseUrl(): string {
    return runtime().supabaseUrl || (typeof window !== "undefined" ? window.location.origin : "http://127.0.0.1:8000");
  },
  get supabaseAnonKey(): string {
    return runtime().supabaseAnonKey || "";
  },
  /** The hard-coded owner account: always shown the Admin link in the header. */
  get ownerEmail(): string {
    return (runtime().ownerEmail || "admin@example.com").toLowerCase();
  },
  /** The administrator every learner's private conversation goes to. */
  get contactAdminEmail(): string {
    return (runtime().contactAdminEmail || "prof@example.com").toLowerCase();
  },
  /** The teacher's messaging-app (WhatsApp) number, shown in contact dialogs. */
  get contactPhone(): string {
    return runtime().contactPhone || "+33 6 12 34 56 78";
  },
  get contactEmail(): string {
    return runtime().contactEmail || "contact@englishfacile.fr";
  },
};
