import { describe, expect, it } from "vitest";
import type { PrivateMessage } from "@/types/db";
import { applyConversationChange, applyInboxChange, countBySender, withoutRead, type MessageChange } from "./changes";

const base = { schema: "public", table: "private_messages", commit_timestamp: "", errors: [] };
const msg = (id: string, sender_id: string, recipient_id: string, created_at: string, is_read = false): PrivateMessage => ({ id, sender_id, recipient_id, created_at, is_read, content: id });
const insert = (row: PrivateMessage): MessageChange => ({ ...base, eventType: "INSERT", new: row, old: {} });
const update = (row: PrivateMessage): MessageChange => ({ ...base, eventType: "UPDATE", new: row, old: { id: row.id } });
const remove = (id: string): MessageChange => ({ ...base, eventType: "DELETE", new: {}, old: { id } });

describe("a conversation kept live by realtime changes", () => {
  const a = msg("a", "me", "peer", "2025-01-01T10:00:00+00:00");
  const b = msg("b", "peer", "me", "2025-01-01T10:05:00+00:00");
  it("adds a new message in date order, once", () => {
    const late = msg("c", "me", "peer", "2025-01-01T10:10:00+00:00");
    const early = msg("d", "peer", "me", "2025-01-01T10:01:00+00:00");
    const list = applyConversationChange(applyConversationChange([a, b], insert(late), "me", "peer"), insert(early), "me", "peer");
    expect(list.map((m) => m.id)).toEqual(["a", "d", "b", "c"]);
    expect(applyConversationChange(list, insert(late), "me", "peer")).toEqual(list);
  });
  it("ignores messages of other conversations", () => {
    const list = [a, b];
    expect(applyConversationChange(list, insert(msg("x", "other", "me", "2025-01-01T11:00:00+00:00")), "me", "peer")).toBe(list);
  });
  it("replaces an updated message and drops a deleted one by its id", () => {
    const read = { ...b, is_read: true };
    expect(applyConversationChange([a, b], update(read), "me", "peer")).toEqual([a, read]);
    expect(applyConversationChange([a, b], remove("a"), "me", "peer")).toEqual([b]);
  });
});

describe("unread messages kept live by realtime changes", () => {
  const list = [{ id: "1", sender_id: "s1" }];
  it("counts a new unread message to the user, once", () => {
    const next = applyInboxChange(list, insert(msg("2", "s2", "me", "t")), "me");
    expect(next).toEqual([...list, { id: "2", sender_id: "s2" }]);
    expect(applyInboxChange(next, insert(msg("2", "s2", "me", "t")), "me")).toBe(next);
  });
  it("forgets a message read or deleted, and leaves the list alone otherwise", () => {
    expect(applyInboxChange(list, update(msg("1", "s1", "me", "t", true)), "me")).toEqual([]);
    expect(applyInboxChange(list, remove("1"), "me")).toEqual([]);
    expect(applyInboxChange(list, remove("9"), "me")).toBe(list);
    expect(applyInboxChange(list, insert(msg("3", "me", "s1", "t")), "me")).toBe(list);
  });
  it("counts per sender and drops the messages marked read", () => {
    const unread = [{ id: "1", sender_id: "s1" }, { id: "2", sender_id: "s1" }, { id: "3", sender_id: "s2" }];
    expect(countBySender(unread)).toEqual(new Map([["s1", 2], ["s2", 1]]));
    expect(withoutRead(unread, ["1", "3"])).toEqual([{ id: "2", sender_id: "s1" }]);
  });
});
