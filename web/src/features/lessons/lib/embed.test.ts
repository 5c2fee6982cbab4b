import { describe, expect, it } from "vitest";
import { isValidEmbedInput, toEmbedUrl } from "./embed";

const PARAMS = "autoplay=false&loop=false&muted=false&preload=true&responsive=true";

describe("isValidEmbedInput", () => {
  it("accepts the iframe host or embed code pointing to it", () => {
    expect(isValidEmbedInput("https://iframe.mediadelivery.net/embed/123/abc")).toBe(true);
    expect(isValidEmbedInput('<iframe src="https://iframe.mediadelivery.net/embed/1/x" allowfullscreen></iframe>')).toBe(true);
  });
  it("refuses other hosts and code without a matching src", () => {
    expect(isValidEmbedInput("https://example.com/video")).toBe(false);
    expect(isValidEmbedInput('<iframe src="https://evil.example/embed"></iframe>')).toBe(false);
    expect(isValidEmbedInput("")).toBe(false);
  });
});

describe("toEmbedUrl", () => {
  it("converts watch and short links of the video site", () => {
    expect(toEmbedUrl("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=10")).toBe("https://www.youtube.com/embed/dQw4w9WgXcQ");
    expect(toEmbedUrl("https://youtu.be/dQw4w9WgXcQ")).toBe("https://www.youtube.com/embed/dQw4w9WgXcQ");
    expect(toEmbedUrl("https://youtube.com/shorts/abc123")).toBe("https://www.youtube.com/embed/abc123");
  });
  it("converts play links to embed links with the player parameters", () => {
    expect(toEmbedUrl("https://iframe.mediadelivery.net/play/4242/0a1b-2c3d")).toBe(`https://iframe.mediadelivery.net/embed/4242/0a1b-2c3d?${PARAMS}`);
  });
  it("takes the src of embed code and sets the parameters", () => {
    const code = '<iframe src="https://iframe.mediadelivery.net/embed/7/vid?autoplay=true" loading="lazy"></iframe>';
    expect(toEmbedUrl(code)).toBe(`https://iframe.mediadelivery.net/embed/7/vid?${PARAMS}`);
  });
  it("returns null for nothing usable", () => {
    expect(toEmbedUrl("")).toBeNull();
    expect(toEmbedUrl("not a url")).toBeNull();
    expect(toEmbedUrl("javascript:alert(1)")).toBeNull();
  });
});
