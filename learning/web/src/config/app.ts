// Runtime configuration: /config.js (served by supalite) sets window.__SUPALITE__ before
// the app loads, so one build works on every host. The owner account, the designated
// administrator and the teacher's contact come from the server (RPCs is_owner_account,
// get_contact_admin, get_site_contact), never from here.
export interface RuntimeConfig {
  supabaseUrl: string;
  supabaseAnonKey: string;
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
};
