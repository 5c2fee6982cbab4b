// The admin's conversation list: who wrote messages not yet read.

/** "1 message non lu", "3 messages non lus" (0 and 1 singular in French). */
export function unreadLabel(count: number): string {
  return count >= 2 ? `${count} messages non lus` : `${count} message non lu`;
}

/** Conversations with unread messages first (most unread first), the list's order otherwise. */
export function withUnreadFirst<T extends { id: string }>(peers: T[], unread: Map<string, number>): T[] {
  return peers
    .map((peer, index) => ({ peer, index, count: unread.get(peer.id) ?? 0 }))
    .sort((a, b) => b.count - a.count || a.index - b.index)
    .map(({ peer }) => peer);
}
