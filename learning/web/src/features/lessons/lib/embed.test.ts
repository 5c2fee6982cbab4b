import { describe, expect, it } from "vitest";
import { isValidEmbedInput, toEmbedUrl } from "./embed";

const PARAMS = "autoplay=false&loop=false&muted=false&preload=true&responsive=true";
const EMBED = "https://www.youtube.com/embed/M7lc1UVf-VE";

describe("isValidEmbedInput", () => {
  it("accepts the iframe host or embed code pointing to it", () => {
    expect(isValidEmbedInput("https://iframe.mediadelivery.net/embed/123/abc")).toBe(true);
    expect(isValidEmbedInput('<iframe src="https://iframe.mediadelivery.net/embed/1/x" allowfullscreen></iframe>')).toBe(true);
  });
  it("accepts the video site's watch, short and embed links", () => {
    expect(isValidEmbedInput("https://www.youtube.com/watch?v=M7lc1UVf-VE")).toBe(true);
    expect(isValidEmbedInput("https://youtu.be/M7lc1UVf-VE")).toBe(true);
    expect(isValidEmbedInput('<iframe width="560" src="https://www.youtube.com/embed/M7lc1UVf-VE" allowfullscreen></iframe>')).toBe(true);
  });
  it("refuses other hosts and code without a matching src", () => {
    expect(isValidEmbedInput("https://example.com/video")).toBe(false);
    expect(isValidEmbedInput("https://vimeo.com/76979871")).toBe(false);
    expect(isValidEmbedInput('<iframe src="https://evil.example/embed"></iframe>')).toBe(false);
    expect(isValidEmbedInput("https://iframe.mediadelivery.net/")).toBe(false);
    expect(isValidEmbedInput("")).toBe(false);
  });
});

describe("toEmbedUrl: the video site's links", () => {
  it("converts watch links, with or without www, on mobile, with extra parameters", () => {
    expect(toEmbedUrl("https://www.youtube.com/watch?v=M7lc1UVf-VE")).toBe(EMBED);
    expect(toEmbedUrl("https://youtube.com/watch?v=M7lc1UVf-VE&list=PL123&index=2")).toBe(EMBED);
    expect(toEmbedUrl("https://m.youtube.com/watch?v=M7lc1UVf-VE&feature=share")).toBe(EMBED);
    expect(toEmbedUrl("  http://www.youtube.com/watch?feature=youtu.be&v=M7lc1UVf-VE  ")).toBe(EMBED);
  });
  it("converts short links and /shorts/ links", () => {
    expect(toEmbedUrl("https://youtu.be/M7lc1UVf-VE")).toBe(EMBED);
    expect(toEmbedUrl("https://youtu.be/M7lc1UVf-VE?si=Ab12Cd34")).toBe(EMBED);
    expect(toEmbedUrl("https://www.youtube.com/shorts/M7lc1UVf-VE")).toBe(EMBED);
    expect(toEmbedUrl("https://youtube.com/shorts/M7lc1UVf-VE?feature=share")).toBe(EMBED);
  });
  it("keeps the start time of &t= (42, 42s, 1m30s, 1h2m3s) as the player's start", () => {
    expect(toEmbedUrl("https://www.youtube.com/watch?v=M7lc1UVf-VE&t=42s")).toBe(`${EMBED}?start=42`);
    expect(toEmbedUrl("https://youtu.be/M7lc1UVf-VE?t=42")).toBe(`${EMBED}?start=42`);
    expect(toEmbedUrl("https://www.youtube.com/watch?v=M7lc1UVf-VE&t=1m30s")).toBe(`${EMBED}?start=90`);
    expect(toEmbedUrl("https://www.youtube.com/watch?v=M7lc1UVf-VE&t=1h2m3s")).toBe(`${EMBED}?start=3723`);
    expect(toEmbedUrl("https://www.youtube.com/embed/M7lc1UVf-VE?start=15&autoplay=1")).toBe(`${EMBED}?start=15`);
    expect(toEmbedUrl("https://www.youtube.com/watch?v=M7lc1UVf-VE&t=0s")).toBe(EMBED);
    expect(toEmbedUrl("https://www.youtube.com/watch?v=M7lc1UVf-VE&t=abc")).toBe(EMBED);
  });
  it("takes embed links and embed code of the video site as they are (autoplay dropped)", () => {
    expect(toEmbedUrl(EMBED)).toBe(EMBED);
    expect(toEmbedUrl("https://www.youtube-nocookie.com/embed/M7lc1UVf-VE")).toBe(EMBED);
    expect(toEmbedUrl('<iframe src="https://www.youtube.com/embed/M7lc1UVf-VE?autoplay=1" title="YouTube video player"></iframe>')).toBe(EMBED);
  });
  it("refuses links of the video site without a video", () => {
    expect(toEmbedUrl("https://www.youtube.com/")).toBeNull();
    expect(toEmbedUrl("https://www.youtube.com/watch")).toBeNull();
    expect(toEmbedUrl("https://www.youtube.com/watch?v=")).toBeNull();
    expect(toEmbedUrl("https://www.youtube.com/watch?v=short")).toBeNull();
    expect(toEmbedUrl("https://www.youtube.com/@channel")).toBeNull();
    expect(toEmbedUrl("https://youtu.be/")).toBeNull();
    expect(toEmbedUrl('https://www.youtube.com/watch?v=M7lc1UVf-VE"><script>')).toBeNull();
  });
  it("refuses look-alike hosts", () => {
    expect(toEmbedUrl("https://youtube.com.evil.example/watch?v=M7lc1UVf-VE")).toBeNull();
    expect(toEmbedUrl("https://notyoutube.com/watch?v=M7lc1UVf-VE")).toBeNull();
    expect(toEmbedUrl("https://evil.example/?u=https://youtu.be/M7lc1UVf-VE")).toBeNull();
  });
});

describe("toEmbedUrl: the media-delivery service", () => {
  it("converts play links to embed links with the player parameters", () => {
    expect(toEmbedUrl("https://iframe.mediadelivery.net/play/4242/0a1b-2c3d")).toBe(`https://iframe.mediadelivery.net/embed/4242/0a1b-2c3d?${PARAMS}`);
    expect(toEmbedUrl("https://player.mediadelivery.net/play/4242/0a1b-2c3d")).toBe(`https://iframe.mediadelivery.net/embed/4242/0a1b-2c3d?${PARAMS}`);
  });
  it("takes the src of embed code and sets the parameters", () => {
    const code = '<iframe src="https://iframe.mediadelivery.net/embed/7/vid?autoplay=true" loading="lazy"></iframe>';
    expect(toEmbedUrl(code)).toBe(`https://iframe.mediadelivery.net/embed/7/vid?${PARAMS}`);
  });
});

describe("toEmbedUrl: everything else", () => {
  it("refuses other hosts: no other site is framed in a lesson", () => {
    expect(toEmbedUrl("https://example.com/video.mp4")).toBeNull();
    expect(toEmbedUrl("https://vimeo.com/76979871")).toBeNull();
    expect(toEmbedUrl("https://player.vimeo.com/video/76979871")).toBeNull();
    expect(toEmbedUrl('<iframe src="https://evil.example/embed/1/2"></iframe>')).toBeNull();
  });
  it("returns null for nothing usable", () => {
    expect(toEmbedUrl("")).toBeNull();
    expect(toEmbedUrl(null)).toBeNull();
    expect(toEmbedUrl("not a url")).toBeNull();
    expect(toEmbedUrl("javascript:alert(1)")).toBeNull();
    expect(toEmbedUrl("ftp://www.youtube.com/watch?v=M7lc1UVf-VE")).toBeNull();
  });
});
