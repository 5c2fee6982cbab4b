// The admin feature's public entry: what the rest of the app may use.
export { AdminCourseCard } from "./components/admin-course-card";
export { AdminGuard } from "./components/admin-guard";
export { BooksTab } from "./components/books-tab";
export { ConfirmDialog } from "./components/confirm-dialog";
export { ContentForm } from "./components/content-form";
export { ContentEditSection, ContentList } from "./components/content-list";
export { CourseForm } from "./components/course-form";
export { BackButton, CourseStateView } from "./components/course-page-parts";
export { ScheduleEditor } from "./components/schedule-editor";
export { SessionsTab } from "./components/sessions-tab";
export { UsersTab } from "./components/users-tab";
export { useCourseContent } from "./hooks/use-course-content";
export { useAdminCourses, useCourseRemoval } from "./hooks/use-courses";
