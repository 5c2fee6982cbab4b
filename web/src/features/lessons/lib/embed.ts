/** The video delivery provider's iframe host (Bunny Stream). */
export const EMBED_HOST = "https://iframe.mediadelivery.net";

/** Player parameters of the spec: autoplay off, loop off, muted off, preload on, responsive. */
export const PLAYER_PARAMS = { autoplay: "false", loop: "false", muted: "false", preload: "true", responsive: "true" } as const;

const SRC_RE = /src\s*=\s*["']([^"']+)["']/i;

/** Valid: starts with the iframe host, or is embed code whose src points to it. */
export function isValidEmbedInput(input: string): boolean {
  const value = input.trim();
  if (value.startsWith(EMBED_HOST)) return true;
  const src = value.match(SRC_RE)?.[1];
  return !!src && src.startsWith(EMBED_HOST);
}

function youtubeId(url: URL): string | null {
  const host = url.hostname.replace(/^www\.|^m\./, "");
  if (host === "youtu.be") return url.pathname.slice(1).split("/")[0] || null;
  if (host === "youtube.com" || host === "youtube-nocookie.com") {
    if (url.pathname === "/watch") return url.searchParams.get("v");
    const m = url.pathname.match(/^\/(?:shorts|embed|live)\/([^/?#]+)/);
    if (m) return m[1];
  }
  return null;
}

/**
 * An embed URL from what an admin pasted: embed code (its src), a watch or short link of
 * the video site, or a play link of the media-delivery service. Media-delivery links get
 * the player parameters. Returns null when nothing usable is found.
 */
export function toEmbedUrl(input: string | null | undefined): string | null {
  if (!input) return null;
  let value = input.trim();
  const src = value.match(SRC_RE)?.[1];
  if (src) value = src;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const yt = youtubeId(url);
  if (yt) return `https://www.youtube.com/embed/${yt}`;
  if (url.hostname === "iframe.mediadelivery.net" || url.hostname === "player.mediadelivery.net") {
    const m = url.pathname.match(/^\/(?:play|embed)\/([^/]+)\/([^/?#]+)/);
    if (!m) return null;
    const out = new URL(`${EMBED_HOST}/embed/${m[1]}/${m[2]}`);
    for (const [k, v] of Object.entries(PLAYER_PARAMS)) out.searchParams.set(k, v);
    return out.toString();
  }
  return url.protocol === "https:" || url.protocol === "http:" ? url.toString() : null;
}
