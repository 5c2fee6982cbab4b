import { MOBILE_BREAKPOINT } from "@/lib/use-media";

export type LessonState = "unviewed" | "viewed" | "completed";

/** completed/total with a whole percentage; 0 % for an empty course. */
export function courseProgress(completed: number, total: number): { completed: number; total: number; percent: number; done: boolean } {
  const safeTotal = Math.max(0, total);
  const safeDone = Math.min(Math.max(0, completed), safeTotal);
  const percent = safeTotal === 0 ? 0 : Math.round((safeDone / safeTotal) * 100);
  return { completed: safeDone, total: safeTotal, percent, done: safeTotal > 0 && safeDone === safeTotal };
}

/** Completed (green) wins over viewed (blue); otherwise unviewed. */
export function lessonState(id: string, completed: ReadonlySet<string>, viewed: ReadonlySet<string>): LessonState {
  if (completed.has(id)) return "completed";
  if (viewed.has(id)) return "viewed";
  return "unviewed";
}

export const CAROUSEL_PAGE_MOBILE = 4;
export const CAROUSEL_PAGE_DESKTOP = 8;

/** Splits lessons into carousel slides: 4 per slide under 768 px, 8 above. */
export function carouselSlides<T>(items: readonly T[], viewportWidth: number): T[][] {
  const size = viewportWidth < MOBILE_BREAKPOINT ? CAROUSEL_PAGE_MOBILE : CAROUSEL_PAGE_DESKTOP;
  const slides: T[][] = [];
  for (let i = 0; i < items.length; i += size) slides.push(items.slice(i, i + size));
  return slides;
}
