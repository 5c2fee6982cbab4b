// The messages feature's public entry: what the rest of the app may use.
export type { Peer } from "./api/messages";
export { Conversation } from "./components/conversation";
export { useDesignatedAdmin, useLearners } from "./hooks/use-peers";
export { useUnreadBySender, useUnreadCount } from "./hooks/use-unread";
export { unreadLabel, withUnreadFirst } from "./lib/unread";
