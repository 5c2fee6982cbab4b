/** The video delivery provider's iframe host (Bunny Stream). */
export const EMBED_HOST = "https://iframe.mediadelivery.net";

/** The video site whose watch and short links become embed links (YouTube), by name. */
export const VIDEO_SITE_NAME = "YouTube";

/** Player parameters of the spec: autoplay off, loop off, muted off, preload on, responsive. */
export const PLAYER_PARAMS = { autoplay: "false", loop: "false", muted: "false", preload: "true", responsive: "true" } as const;

const SRC_RE = /src\s*=\s*["']([^"']+)["']/i;
const YOUTUBE_EMBED = "https://www.youtube.com/embed/";
// The video site's hosts: its own domains only, never a look-alike ending with them.
const YOUTUBE_HOSTS = new Set(["youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com", "youtube-nocookie.com", "www.youtube-nocookie.com"]);
// A video's id on the video site: 11 characters of its URL-safe alphabet.
const YOUTUBE_ID_RE = /^[A-Za-z0-9_-]{11}$/;
const DELIVERY_HOSTS = new Set(["iframe.mediadelivery.net", "player.mediadelivery.net"]);

/** Valid: a link or embed code that toEmbedUrl turns into a lesson's player. */
export function isValidEmbedInput(input: string): boolean {
  return toEmbedUrl(input) !== null;
}

function youtubeId(url: URL): string | null {
  let id: string | null = null;
  if (url.hostname === "youtu.be") id = url.pathname.split("/")[1] ?? null;
  else if (YOUTUBE_HOSTS.has(url.hostname)) {
    if (url.pathname === "/watch") id = url.searchParams.get("v");
    else id = url.pathname.match(/^\/(?:shorts|embed|live|v)\/([^/]+)\/?$/)?.[1] ?? null;
  }
  return id && YOUTUBE_ID_RE.test(id) ? id : null;
}

/** "42", "42s", "1m30s", "1h2m3s" -> seconds; 0 when absent or not a time. */
function startSeconds(url: URL): number {
  const value = url.searchParams.get("t") ?? url.searchParams.get("start") ?? "";
  if (/^\d+$/.test(value)) return Number(value);
  const m = value.match(/^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/);
  if (!m) return 0;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/**
 * The embed URL of what an admin pasted (embed code: its src), or null when it is no video
 * a lesson may frame. Two sites only: the video site, whose watch, short and embed links
 * become its embed link (a start time kept), and the media-delivery service, whose play
 * and embed links become its embed link with the player parameters. Every other host is
 * refused, so a lesson never frames another site.
 */
export function toEmbedUrl(input: string | null | undefined): string | null {
  if (!input) return null;
  let value = input.trim();
  const src = value.match(SRC_RE)?.[1];
  if (src) value = src.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const yt = youtubeId(url);
  if (yt) {
    const start = startSeconds(url);
    return `${YOUTUBE_EMBED}${yt}${start > 0 ? `?start=${start}` : ""}`;
  }
  if (DELIVERY_HOSTS.has(url.hostname)) {
    const m = url.pathname.match(/^\/(?:play|embed)\/([^/]+)\/([^/?#]+)/);
    if (!m) return null;
    const out = new URL(`${EMBED_HOST}/embed/${m[1]}/${m[2]}`);
    for (const [k, v] of Object.entries(PLAYER_PARAMS)) out.searchParams.set(k, v);
    return out.toString();
  }
  return null;
}
