import * as React from "react";
import { ChevronLeftIcon, ChevronRightIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { carouselSlides, lessonState, type LessonState } from "@/features/courses/lib/progress";
import { useViewportWidth } from "@/lib/use-media";
import { cn } from "@/lib/utils";
import type { CourseContent } from "@/types/db";

const STATE_CLASS: Record<LessonState, string> = {
  unviewed: "bg-muted text-foreground hover:bg-muted/70",
  viewed: "bg-blue-100 text-blue-900 hover:bg-blue-200 dark:bg-blue-900/50 dark:text-blue-100",
  completed: "bg-emerald-700 text-white hover:bg-emerald-800",
};
const STATE_LABEL: Record<LessonState, string> = { unviewed: "non vue", viewed: "vue", completed: "terminée" };

/** Numbered lesson buttons, 4 per slide on mobile and 8 on desktop; opens on the last slide. */
export function LessonCarousel({ lessons, selectedId, completed, viewed, onSelect }: { lessons: CourseContent[]; selectedId: string | null; completed: Set<string>; viewed: Set<string>; onSelect: (id: string) => void }) {
  const width = useViewportWidth();
  const slides = carouselSlides(lessons, width);
  const [slide, setSlide] = React.useState(0);
  const last = Math.max(0, slides.length - 1);

  // Scrolls to the last slide 500 ms after load (and after the page size changes).
  React.useEffect(() => {
    const timer = window.setTimeout(() => setSlide(last), 500);
    return () => window.clearTimeout(timer);
  }, [last]);

  const current = Math.min(slide, last);
  return (
    <div className="flex items-center gap-2" role="group" aria-label="Leçons du cours">
      <Button variant="outline" size="icon" className="shrink-0" onClick={() => setSlide(Math.max(0, current - 1))} disabled={current === 0} aria-label="Leçons précédentes">
        <ChevronLeftIcon aria-hidden />
      </Button>
      <div className="min-w-0 flex-1 overflow-hidden">
        <div className="flex transition-transform duration-300" style={{ transform: `translateX(-${current * 100}%)` }} data-testid="lesson-carousel" data-slide={current}>
          {slides.map((items, i) => (
            <div key={i} className="grid w-full shrink-0 grid-cols-4 gap-2 p-1 md:grid-cols-8" aria-hidden={i !== current} inert={i !== current}>
              {items.map((lesson) => {
                const n = lessons.indexOf(lesson) + 1;
                const state = lessonState(lesson.id, completed, viewed);
                const selected = lesson.id === selectedId;
                return (
                  <button
                    key={lesson.id}
                    type="button"
                    onClick={() => onSelect(lesson.id)}
                    className={cn(
                      "focus-visible:ring-ring/50 flex h-11 items-center justify-center rounded-lg text-sm font-semibold transition-colors outline-none focus-visible:ring-[3px]",
                      STATE_CLASS[state],
                      selected && "ring-primary ring-offset-background ring-2 ring-offset-2",
                    )}
                    aria-pressed={selected}
                    aria-label={`Leçon ${n} : ${lesson.title} (${STATE_LABEL[state]})`}
                    title={lesson.title}
                  >
                    {n}
                  </button>
                );
              })}
            </div>
          ))}
        </div>
      </div>
      <Button variant="outline" size="icon" className="shrink-0" onClick={() => setSlide(Math.min(last, current + 1))} disabled={current >= last} aria-label="Leçons suivantes">
        <ChevronRightIcon aria-hidden />
      </Button>
    </div>
  );
}
