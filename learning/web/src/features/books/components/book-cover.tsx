import * as React from "react";
import { BookOpenIcon } from "lucide-react";
import { cn } from "@/lib/utils";

const PALETTES = ["from-blue-600 to-indigo-700", "from-emerald-600 to-teal-700", "from-rose-600 to-pink-700", "from-amber-500 to-orange-600", "from-violet-600 to-purple-700", "from-sky-600 to-cyan-700"];

/** The cover image, or a typographic cover when there is none (or it fails to load).
 * `decorative` where the title is already said next to it (a button naming the book): the
 * cover is then hidden from assistive technology instead of naming the book a second time. */
export function BookCover({ src, title, className, decorative = false }: { src: string | null; title: string; className?: string; decorative?: boolean }) {
  const [failed, setFailed] = React.useState(false);
  const palette = PALETTES[Math.abs([...title].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7)) % PALETTES.length];
  if (src && !failed) {
    return <img src={src} alt={decorative ? "" : `Couverture : ${title}`} loading="lazy" onError={() => setFailed(true)} className={cn("aspect-[3/4] w-full rounded-md object-cover shadow-md", className)} />;
  }
  return (
    <div className={cn("relative flex aspect-[3/4] w-full flex-col justify-between overflow-hidden rounded-md bg-gradient-to-br p-3 text-white shadow-md", palette, className)} {...(decorative ? { "aria-hidden": true } : { role: "img", "aria-label": `Couverture : ${title}` })}>
      <div className="absolute inset-y-0 left-0 w-2 bg-black/20" />
      <BookOpenIcon className="size-5 opacity-80" aria-hidden />
      <p className="line-clamp-4 pl-1 text-sm leading-snug font-semibold">{title}</p>
      <span className="pl-1 text-[10px] tracking-widest uppercase opacity-80">English</span>
    </div>
  );
}
