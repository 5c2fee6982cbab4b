import { describe, expect, it } from "vitest";
import { unreadLabel, withUnreadFirst } from "./unread";

describe("unread conversations", () => {
  it("counts in French", () => {
    expect(unreadLabel(1)).toBe("1 message non lu");
    expect(unreadLabel(2)).toBe("2 messages non lus");
  });
  it("puts conversations with unread messages first and keeps the order otherwise", () => {
    const peers = [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "d" }];
    const unread = new Map([["c", 1], ["d", 3]]);
    expect(withUnreadFirst(peers, unread).map((p) => p.id)).toEqual(["d", "c", "a", "b"]);
    expect(withUnreadFirst(peers, new Map()).map((p) => p.id)).toEqual(["a", "b", "c", "d"]);
  });
});
