import { describe, expect, it } from "vitest";
import { bookCardState, coverUrl } from "./book";

describe("bookCardState", () => {
  it("asks visitors to sign in", () => {
    expect(bookCardState(false, true)).toBe("login-required");
  });
  it("is downloadable with access and restricted without", () => {
    expect(bookCardState(true, true)).toBe("downloadable");
    expect(bookCardState(true, false)).toBe("restricted");
  });
});

describe("coverUrl", () => {
  it("builds the public path of the covers bucket", () => {
    expect(coverUrl("http://h:8000/", "books/1700_ma couverture.jpg")).toBe("http://h:8000/storage/v1/object/public/covers/books/1700_ma%20couverture.jpg");
  });
  it("keeps a full URL and ignores a missing cover", () => {
    expect(coverUrl("http://h", "https://cdn.example/c.jpg")).toBe("https://cdn.example/c.jpg");
    expect(coverUrl("http://h", null)).toBeNull();
  });
});
