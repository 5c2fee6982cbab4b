// The lessons feature's public entry: what the rest of the app may use.
export { LessonPlayer, playerOffersDownload, useContentDownload } from "./components/lesson-player";
export { EMBED_HOST, VIDEO_SITE_NAME, isValidEmbedInput, toEmbedUrl } from "./lib/embed";
export { fileTypeIcon, fileTypeLabel } from "./lib/file-type";
