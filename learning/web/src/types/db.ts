// The app's row types, derived from the generated database types (src/types/database.ts, made by
// `supalite gen types typescript`; never edit that file by hand).
//
// PostgreSQL reports every column of a view as nullable; the views below are plain selections
// over tables whose columns are NOT NULL, so those columns are restated as non-null here (the
// MergeDeep override the Supabase docs recommend).
import type { MergeDeep } from "type-fest";
import { Constants, type Database as GeneratedDatabase } from "./database";

export type Database = MergeDeep<
  GeneratedDatabase,
  {
    public: {
      Views: {
        profiles: {
          Row: {
            id: string;
            student_role: GeneratedDatabase["public"]["Enums"]["student_role"];
            agent: boolean;
            role: GeneratedDatabase["public"]["Enums"]["user_role"];
            created_at: string;
          };
        };
        user_sessions: {
          Row: { id: string; user_id: string; is_current: boolean; is_this_device: boolean; created_at: string };
        };
      };
    };
  }
>;

type PublicSchema = Database["public"];
type TableRow<Name extends keyof PublicSchema["Tables"]> = PublicSchema["Tables"][Name]["Row"];
type ViewRow<Name extends keyof PublicSchema["Views"]> = PublicSchema["Views"][Name]["Row"];

export type Role = PublicSchema["Enums"]["user_role"];
export type Visibility = PublicSchema["Enums"]["course_visibility"];
export type FileType = PublicSchema["Enums"]["content_file_type"];
export type StudentRole = PublicSchema["Enums"]["student_role"];

const isOneOf =
  <T extends string>(values: readonly T[]) =>
  (value: string): value is T =>
    (values as readonly string[]).includes(value);

/** A form's select value checked against the database's enum before it is sent. */
export const isFileType = isOneOf<FileType>(Constants.public.Enums.content_file_type);
export const isStudentRole = isOneOf<StudentRole>(Constants.public.Enums.student_role);

export type Profile = ViewRow<"profiles">;
export type ProfileUpdate = PublicSchema["Views"]["profiles"]["Update"];
export type UserSession = ViewRow<"user_sessions">;
export type Book = TableRow<"books">;
export type Course = TableRow<"courses">;
export type CourseContent = TableRow<"course_content">;
export type UnlockSchedule = TableRow<"course_unlock_schedules">;
export type CommentRow = TableRow<"content_comments">;
export type ReplyRow = TableRow<"comment_replies">;
export type PrivateMessage = TableRow<"private_messages">;
