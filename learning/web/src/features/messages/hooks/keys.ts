/** Query keys of the messages feature: the user id keeps one user's messages from the next. */
export const messageKeys = {
  unread: (userId: string | null) => ["messages", "unread", userId] as const,
  conversation: (userId: string, peerId: string) => ["messages", "conversation", userId, peerId] as const,
  designatedAdmin: ["contact-admin"] as const,
  learners: ["profiles", "non-admin"] as const,
};
