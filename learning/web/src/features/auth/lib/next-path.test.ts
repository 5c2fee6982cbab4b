import { describe, expect, it } from "vitest";
import { safeNextPath, withNext } from "./next-path";

describe("safeNextPath", () => {
  it("follows a path of this site, query and fragment included", () => {
    expect(safeNextPath("/cours/abc")).toBe("/cours/abc");
    expect(safeNextPath("/cours/abc?x=1#sommaire")).toBe("/cours/abc?x=1#sommaire");
    expect(safeNextPath("/")).toBe("/");
  });

  it("sends anything that could leave the site to /", () => {
    for (const raw of [
      null,
      undefined,
      "",
      "//evil.example",
      "///evil.example",
      "/\\evil.example",
      "/\t/evil.example",
      "/\n/evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "cours/abc",
      " /cours",
      "/cours\\..\\x",
      `/${"a".repeat(3000)}`,
    ]) {
      expect(safeNextPath(raw)).toBe("/");
    }
  });
});

describe("withNext", () => {
  it("carries a safe path along, encoded, and nothing for /", () => {
    expect(withNext("/connexion", "/cours/abc?x=1")).toBe("/connexion?next=%2Fcours%2Fabc%3Fx%3D1");
    expect(withNext("/inscription", "/")).toBe("/inscription");
    expect(withNext("/connexion", "//evil.example")).toBe("/connexion");
  });
});
