import * as React from "react";
import { countUnread, countUnreadBySender, subscribeInbox } from "@/features/messages/api/messages";

/**
 * A value computed from the user's unread messages, recomputed on every change to the inbox
 * (realtime), when the tab comes back (a change may have arrived while hidden) and when a
 * conversation marks messages read ("messages:read").
 */
function useInboxValue<T>(userId: string | null, empty: T, read: (userId: string) => Promise<T>): T {
  const [value, setValue] = React.useState<T>(empty);
  React.useEffect(() => {
    if (!userId) {
      setValue(empty);
      return;
    }
    let alive = true;
    const refresh = () => void read(userId).then((v) => alive && setValue(v));
    refresh();
    const off = subscribeInbox(userId, refresh);
    const onVisible = () => document.visibilityState === "visible" && refresh();
    document.addEventListener("visibilitychange", onVisible);
    window.addEventListener("messages:read", refresh);
    return () => {
      alive = false;
      off();
      document.removeEventListener("visibilitychange", onVisible);
      window.removeEventListener("messages:read", refresh);
    };
  }, [userId, empty, read]);
  return value;
}

const NO_UNREAD = new Map<string, number>();

/** Number of unread messages for the user, updated live through realtime. */
export function useUnreadCount(userId: string | null): number {
  return useInboxValue(userId, 0, countUnread);
}

/** Unread messages for the user per sender (the admin's conversation list), updated live. */
export function useUnreadBySender(userId: string | null): Map<string, number> {
  return useInboxValue(userId, NO_UNREAD, countUnreadBySender);
}
