// Row shapes of the app's tables (spec, section 3).
export type Role = "user" | "admin";

export interface Profile {
  id: string;
  email: string | null;
  full_name: string | null;
  country: string | null;
  whatsapp_number: string | null;
  student_role: string | null;
  agent: boolean | null;
  role: Role | null;
  paid: boolean | null;
  date_paid: string | null;
  expire_date: string | null;
  created_at: string;
}

export interface Book {
  id: string;
  title: string;
  description: string | null;
  pages: number | null;
  file_size: number | null;
  file_path: string | null;
  cover_url: string | null;
  created_by: string | null;
  created_at: string;
}

export type Visibility = "public" | "private";

export interface Course {
  id: string;
  title: string;
  description: string | null;
  visibility: Visibility | string;
  cover_url: string | null;
  created_by: string | null;
  created_at: string;
}

export type FileType = "video" | "document" | "pdf" | "image" | "audio" | "other";

export interface CourseContent {
  id: string;
  course_id: string;
  title: string;
  description: string | null;
  file_path: string | null;
  file_type: FileType | string;
  file_size: number | null;
  video_embed_url: string | null;
  order_index: number | null;
  created_by: string | null;
  created_at: string;
}

export interface CommentRow {
  id: string;
  content_id: string;
  user_id: string;
  content: string;
  created_at: string;
}

export interface ReplyRow {
  id: string;
  comment_id: string;
  user_id: string;
  content: string;
  created_at: string;
}

export interface PrivateMessage {
  id: string;
  sender_id: string;
  recipient_id: string;
  content: string;
  is_read: boolean;
  created_at: string;
}

export interface UserSession {
  id: string;
  user_id: string;
  device_name: string | null;
  ip_address: string | null;
  last_active: string | null;
  is_current: boolean;
  created_at?: string;
}
