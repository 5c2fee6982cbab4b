import * as React from "react";
import { ChevronLeftIcon, ChevronRightIcon, LockIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { carouselSlides, lessonState, type LessonState } from "@/features/courses/lib/progress";
import { lockedLabel, shortUnlockDate, type OutlineLesson } from "@/features/courses/lib/unlock";
import { useViewportWidth } from "@/lib/use-media";
import { cn } from "@/lib/utils";

const STATE_CLASS: Record<LessonState, string> = {
  unviewed: "bg-muted text-foreground hover:bg-muted/70",
  watched: "bg-emerald-700 text-white hover:bg-emerald-800",
};
const LOCKED_CLASS = "border border-dashed bg-background text-muted-foreground hover:bg-muted/40";
const STATE_LABEL: Record<LessonState, string> = { unviewed: "non vue", watched: "terminée" };

/**
 * Numbered lesson buttons, 4 per slide on mobile and 8 on desktop; opens on the last slide.
 * Locked lessons (the server's outline) show a lock and the day they open; a lesson the
 * learner has watched is "terminée" (green), whether or not an admin granted it.
 */
export function LessonCarousel({ lessons, selectedId, viewed, onSelect }: { lessons: OutlineLesson[]; selectedId: string | null; viewed: ReadonlySet<string>; onSelect: (id: string) => void }) {
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
                const n = lesson.lesson_position;
                const state = lessonState(lesson.id, viewed);
                const selected = lesson.id === selectedId;
                const status = lesson.unlocked ? STATE_LABEL[state] : `verrouillée, ${lockedLabel(lesson).toLowerCase()}`;
                return (
                  <button
                    key={lesson.id}
                    type="button"
                    onClick={() => onSelect(lesson.id)}
                    className={cn(
                      "focus-visible:ring-ring/50 flex h-11 flex-col items-center justify-center rounded-lg text-sm leading-none font-semibold transition-colors outline-none focus-visible:ring-[3px]",
                      lesson.unlocked ? STATE_CLASS[state] : LOCKED_CLASS,
                      selected && "ring-primary ring-offset-background ring-2 ring-offset-2",
                    )}
                    aria-pressed={selected}
                    // A locked button shows its number and day; its name is the full sentence.
                    aria-label={lesson.unlocked ? `Leçon ${n} : ${lesson.title} (${status})` : undefined}
                    title={lesson.unlocked ? lesson.title : `${lesson.title} · ${lockedLabel(lesson)}`}
                    data-locked={lesson.unlocked ? undefined : "true"}
                    data-state={lesson.unlocked ? state : "locked"}
                  >
                    {lesson.unlocked ? (
                      n
                    ) : (
                      <>
                        <span className="sr-only">{`Leçon ${n} : ${lesson.title} (${status})`}</span>
                        <span className="flex items-center gap-1" aria-hidden>
                          <LockIcon className="size-3" aria-hidden /> {n}
                        </span>
                        {lesson.unlocks_at && (
                          <span className="mt-1 text-[10px] font-normal" aria-hidden>
                            {shortUnlockDate(lesson.unlocks_at)}
                          </span>
                        )}
                      </>
                    )}
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
