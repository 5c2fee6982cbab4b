import * as React from "react";
import { countUnread, subscribeInbox } from "@/features/messages/api/messages";

/** Number of unread messages for the user, updated live through realtime. */
export function useUnreadCount(userId: string | null): number {
  const [count, setCount] = React.useState(0);
  React.useEffect(() => {
    if (!userId) {
      setCount(0);
      return;
    }
    let alive = true;
    const refresh = () => void countUnread(userId).then((n) => alive && setCount(n));
    refresh();
    const off = subscribeInbox(userId, refresh);
    // Also refresh when the tab comes back, in case a change arrived while hidden.
    const onVisible = () => document.visibilityState === "visible" && refresh();
    document.addEventListener("visibilitychange", onVisible);
    window.addEventListener("messages:read", refresh);
    return () => {
      alive = false;
      off();
      document.removeEventListener("visibilitychange", onVisible);
      window.removeEventListener("messages:read", refresh);
    };
  }, [userId]);
  return count;
}
