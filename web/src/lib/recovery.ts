// Read before supabase-js consumes the URL: a recovery link lands with type=recovery.
export const recoveryLinkOpened: boolean =
  typeof window !== "undefined" && /(^|[#&?])type=recovery(&|$)/.test(`${window.location.hash}${window.location.search}`);
