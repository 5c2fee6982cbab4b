// The courses feature's public entry: what the rest of the app may use.
export { CONTENT_BUCKET, contentDownloadUrl, contentImageUrl, openOutline, recordView, viewedContentIds } from "./api/courses";
export { CourseCard, CourseCover, VisibilityBadge } from "./components/course-card";
export { LessonCarousel } from "./components/lesson-carousel";
export { useCourse } from "./hooks/use-course";
export { useLesson, type LessonView } from "./hooks/use-lesson";
export { useRecordView } from "./hooks/use-record-view";
export { courseKeys, useVisibleCourses } from "./hooks/use-visible-courses";
export { grantedLessonsLabel } from "./lib/access";
export { courseProgress } from "./lib/progress";
export { lockedLabel, nextUnlock } from "./lib/unlock";
export type { OutlineLesson } from "./lib/unlock";
