import { describe, expect, it } from "vitest";
import { checkVideoEmbed, EMBED_MESSAGES } from "./video-embed";

describe("checkVideoEmbed", () => {
  it("asks for a URL when empty", () => {
    expect(checkVideoEmbed("  ")).toEqual({ ok: false, message: EMBED_MESSAGES.missing });
    expect(EMBED_MESSAGES.missing).toBe("Veuillez entrer une URL d'intégration pour la vidéo");
  });
  it("accepts an iframe URL, a play link and embed code of the delivery host", () => {
    const url = checkVideoEmbed("https://iframe.mediadelivery.net/embed/42/abc-def");
    expect(url.ok && url.url).toMatch(/^https:\/\/iframe\.mediadelivery\.net\/embed\/42\/abc-def\?autoplay=false/);
    const play = checkVideoEmbed("https://iframe.mediadelivery.net/play/42/abc");
    expect(play.ok && play.url).toMatch(/\/embed\/42\/abc\?/);
    const code = checkVideoEmbed('<iframe src="https://iframe.mediadelivery.net/embed/7/x?autoplay=true" loading="lazy"></iframe>');
    expect(code.ok && code.url).toMatch(/^https:\/\/iframe\.mediadelivery\.net\/embed\/7\/x\?autoplay=false/);
  });
  it("stores the video site's watch and short links as its embed link", () => {
    expect(checkVideoEmbed("https://www.youtube.com/watch?v=M7lc1UVf-VE&t=42s")).toEqual({ ok: true, url: "https://www.youtube.com/embed/M7lc1UVf-VE?start=42" });
    expect(checkVideoEmbed("https://youtu.be/M7lc1UVf-VE")).toEqual({ ok: true, url: "https://www.youtube.com/embed/M7lc1UVf-VE" });
  });
  it("refuses other hosts and code pointing elsewhere with the spec's message, naming the accepted hosts", () => {
    const message = "Veuillez entrer une URL ou un code embed iframe.mediadelivery.net ou YouTube valide";
    expect(checkVideoEmbed("https://vimeo.com/76979871")).toEqual({ ok: false, message });
    expect(checkVideoEmbed('<iframe src="https://evil.example/embed/1/2"></iframe>')).toEqual({ ok: false, message });
    expect(checkVideoEmbed("https://iframe.mediadelivery.net/")).toEqual({ ok: false, message });
    expect(checkVideoEmbed("https://www.youtube.com/watch?v=")).toEqual({ ok: false, message });
  });
});
