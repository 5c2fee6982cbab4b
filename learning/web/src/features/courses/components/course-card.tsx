import { Link } from "react-router-dom";
import { PlayCircleIcon } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { courseCoverUrl } from "@/features/courses/api/courses";
import { CourseProgressLine } from "@/features/courses/components/course-progress";
import type { CourseProgress } from "@/features/courses/lib/progress";
import type { Course } from "@/types/db";

export function VisibilityBadge({ visibility, wording = "price" }: { visibility: string; wording?: "price" | "privacy" }) {
  const isPublic = visibility === "public";
  if (wording === "privacy") return <Badge variant={isPublic ? "success" : "warning"}>{isPublic ? "Public" : "Privé"}</Badge>;
  return <Badge variant={isPublic ? "success" : "warning"}>{isPublic ? "Gratuite" : "Payante"}</Badge>;
}

export function CourseCover({ course, className = "" }: { course: Pick<Course, "cover_url">; className?: string }) {
  const src = courseCoverUrl(course);
  return src ? (
    <img src={src} alt="" loading="lazy" className={`aspect-video w-full object-cover ${className}`} />
  ) : (
    <div className={`from-primary/80 to-primary flex aspect-video w-full items-center justify-center bg-gradient-to-br ${className}`} aria-hidden>
      <PlayCircleIcon className="size-10 text-white/85" />
    </div>
  );
}

/** A course of the list; a signed-in learner's card shows their progress where something is unlocked. */
export function CourseCard({ course, signedIn, progress }: { course: Course; signedIn: boolean; progress?: CourseProgress }) {
  return (
    <article className="bg-card group flex flex-col overflow-hidden rounded-xl border shadow-sm transition-shadow hover:shadow-md" data-testid="course-card">
      <div className="relative">
        <CourseCover course={course} className="transition-transform duration-300 group-hover:scale-[1.02]" />
        <span className="absolute top-2 left-2"><VisibilityBadge visibility={course.visibility} /></span>
      </div>
      <div className="flex flex-1 flex-col gap-2 p-3 sm:p-4">
        <h2 className="line-clamp-2 text-sm leading-snug font-semibold sm:text-base">{course.title}</h2>
        <p className="text-muted-foreground line-clamp-2 text-xs sm:line-clamp-3 sm:text-sm">{course.description || "Pas de description disponible."}</p>
        {progress && <CourseProgressLine progress={progress} className="pt-1" />}
        <div className="mt-auto pt-2">
          {signedIn ? (
            <Button asChild size="sm" className="w-full">
              <Link to={`/course/${course.id}`} aria-label={`Accéder au cours ${course.title}`}>Accéder au cours</Link>
            </Button>
          ) : (
            <Button asChild size="sm" variant="outline" className="w-full">
              <Link to={`/inscription?next=${encodeURIComponent(`/course/${course.id}`)}`} aria-label={`S'inscrire pour suivre ${course.title}`}>
                S'inscrire
              </Link>
            </Button>
          )}
        </div>
      </div>
    </article>
  );
}
