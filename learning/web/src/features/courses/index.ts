// The courses feature's public entry: what the rest of the app may use.
export { CONTENT_BUCKET, contentDownloadUrl, contentImageUrl, openOutline, recordView, viewedContentIds, type CourseSummary } from "./api/courses";
export { CourseCard, CourseCover, VisibilityBadge } from "./components/course-card";
export { CourseProgressLine } from "./components/course-progress";
export { LessonCarousel } from "./components/lesson-carousel";
export { useCourse, type CourseHeader } from "./hooks/use-course";
export { progressKeys, useCourseProgress } from "./hooks/use-progress";
export { useLesson, type LessonView } from "./hooks/use-lesson";
export { useRecordView } from "./hooks/use-record-view";
export { courseKeys, useVisibleCourses } from "./hooks/use-visible-courses";
export { authLink, grantedLessonsLabel, lessonCountLabel } from "./lib/access";
export { isUpToDate, noProgress, progressText, type CourseProgress } from "./lib/progress";
export { lockedLabel, nextUnlock } from "./lib/unlock";
export type { OutlineLesson } from "./lib/unlock";
