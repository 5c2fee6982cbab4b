// Prints the gzipped size of the JavaScript the browser loads before any lazy route:
// the entry module and every chunk index.html preloads. Fails above the 250 KB budget.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const dist = new URL("../dist/", import.meta.url).pathname;
const html = readFileSync(join(dist, "index.html"), "utf8");
const files = new Set();
for (const m of html.matchAll(/<(?:script[^>]*type="module"[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="\/([^"]+\.js)"/g)) {
  files.add(m[1]);
}
let total = 0;
for (const file of files) total += gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const kb = (total / 1024).toFixed(1);
const budget = 250;
console.log(`initial JS: ${files.size} file(s), ${kb} KB gzipped (budget ${budget} KB)`);
if (total > budget * 1024) {
  console.error(`initial JS over budget: ${kb} KB > ${budget} KB`);
  process.exit(1);
}
