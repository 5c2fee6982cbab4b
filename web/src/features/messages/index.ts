// The messages feature's public entry: what the rest of the app may use.
export { designatedAdmin, listNonAdminUsers } from "./api/messages";
export type { Peer } from "./api/messages";
export { Conversation } from "./components/conversation";
export { messageKeys } from "./hooks/keys";
export { useDesignatedAdmin, useLearners } from "./hooks/use-peers";
export { useUnreadBySender, useUnreadCount } from "./hooks/use-unread";
export { unreadLabel, withUnreadFirst } from "./lib/unread";
