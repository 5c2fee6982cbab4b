export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]

export type Database = {
  // Allows to automatically instantiate createClient with right options
  // instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)
  __InternalSupabase: {
    PostgrestVersion: "12"
  }
  public: {
    Tables: {
      books: {
        Row: {
          cover_url: string | null
          created_at: string
          created_by: string | null
          description: string | null
          file_path: string | null
          file_size: number | null
          id: string
          pages: number
          title: string
        }
        Insert: {
          cover_url?: string | null
          created_at?: string
          created_by?: string | null
          description?: string | null
          file_path?: string | null
          file_size?: number | null
          id?: string
          pages?: number
          title: string
        }
        Update: {
          cover_url?: string | null
          created_at?: string
          created_by?: string | null
          description?: string | null
          file_path?: string | null
          file_size?: number | null
          id?: string
          pages?: number
          title?: string
        }
        Relationships: [
          {
            foreignKeyName: "books_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      comment_replies: {
        Row: {
          comment_id: string
          content: string
          created_at: string
          id: string
          user_id: string
        }
        Insert: {
          comment_id: string
          content: string
          created_at?: string
          id?: string
          user_id?: string
        }
        Update: {
          comment_id?: string
          content?: string
          created_at?: string
          id?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "comment_replies_comment_id_fkey"
            columns: ["comment_id"]
            isOneToOne: false
            referencedRelation: "content_comments"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "comment_replies_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      content_comments: {
        Row: {
          content: string
          content_id: string
          created_at: string
          id: string
          user_id: string
        }
        Insert: {
          content: string
          content_id: string
          created_at?: string
          id?: string
          user_id?: string
        }
        Update: {
          content?: string
          content_id?: string
          created_at?: string
          id?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "content_comments_content_id_fkey"
            columns: ["content_id"]
            isOneToOne: false
            referencedRelation: "course_content"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "content_comments_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      content_views: {
        Row: {
          content_id: string
          user_id: string
          viewed_at: string
        }
        Insert: {
          content_id: string
          user_id: string
          viewed_at?: string
        }
        Update: {
          content_id?: string
          user_id?: string
          viewed_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "content_views_content_id_fkey"
            columns: ["content_id"]
            isOneToOne: false
            referencedRelation: "course_content"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "content_views_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      course_access: {
        Row: {
          course_id: string
          created_at: string
          granted_by: string | null
          user_id: string
        }
        Insert: {
          course_id: string
          created_at?: string
          granted_by?: string | null
          user_id: string
        }
        Update: {
          course_id?: string
          created_at?: string
          granted_by?: string | null
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "course_access_course_id_fkey"
            columns: ["course_id"]
            isOneToOne: false
            referencedRelation: "courses"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "course_access_granted_by_fkey"
            columns: ["granted_by"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "course_access_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      course_content: {
        Row: {
          course_id: string
          created_at: string
          created_by: string | null
          description: string | null
          file_path: string | null
          file_size: number | null
          file_type: Database["public"]["Enums"]["content_file_type"]
          id: string
          order_index: number
          title: string
          video_embed_url: string | null
        }
        Insert: {
          course_id: string
          created_at?: string
          created_by?: string | null
          description?: string | null
          file_path?: string | null
          file_size?: number | null
          file_type: Database["public"]["Enums"]["content_file_type"]
          id?: string
          order_index: number
          title: string
          video_embed_url?: string | null
        }
        Update: {
          course_id?: string
          created_at?: string
          created_by?: string | null
          description?: string | null
          file_path?: string | null
          file_size?: number | null
          file_type?: Database["public"]["Enums"]["content_file_type"]
          id?: string
          order_index?: number
          title?: string
          video_embed_url?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "course_content_course_id_fkey"
            columns: ["course_id"]
            isOneToOne: false
            referencedRelation: "courses"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "course_content_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      course_unlock_schedules: {
        Row: {
          course_id: string
          created_at: string
          id: string
          is_active: boolean
          lessons_per_unlock: number
          start_delay_days: number
          unlock_interval_days: number
          updated_at: string
        }
        Insert: {
          course_id: string
          created_at?: string
          id?: string
          is_active?: boolean
          lessons_per_unlock?: number
          start_delay_days?: number
          unlock_interval_days?: number
          updated_at?: string
        }
        Update: {
          course_id?: string
          created_at?: string
          id?: string
          is_active?: boolean
          lessons_per_unlock?: number
          start_delay_days?: number
          unlock_interval_days?: number
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "course_unlock_schedules_course_id_fkey"
            columns: ["course_id"]
            isOneToOne: true
            referencedRelation: "courses"
            referencedColumns: ["id"]
          },
        ]
      }
      courses: {
        Row: {
          cover_url: string | null
          created_at: string
          created_by: string | null
          description: string | null
          id: string
          title: string
          updated_at: string
          visibility: Database["public"]["Enums"]["course_visibility"]
        }
        Insert: {
          cover_url?: string | null
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          title: string
          updated_at?: string
          visibility?: Database["public"]["Enums"]["course_visibility"]
        }
        Update: {
          cover_url?: string | null
          created_at?: string
          created_by?: string | null
          description?: string | null
          id?: string
          title?: string
          updated_at?: string
          visibility?: Database["public"]["Enums"]["course_visibility"]
        }
        Relationships: [
          {
            foreignKeyName: "courses_created_by_fkey"
            columns: ["created_by"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      full_access_users: {
        Row: {
          created_at: string
          granted_by: string | null
          user_id: string
        }
        Insert: {
          created_at?: string
          granted_by?: string | null
          user_id: string
        }
        Update: {
          created_at?: string
          granted_by?: string | null
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "full_access_users_granted_by_fkey"
            columns: ["granted_by"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "full_access_users_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: true
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      private_messages: {
        Row: {
          content: string
          created_at: string
          id: string
          is_read: boolean
          recipient_id: string
          sender_id: string
        }
        Insert: {
          content: string
          created_at?: string
          id?: string
          is_read?: boolean
          recipient_id: string
          sender_id?: string
        }
        Update: {
          content?: string
          created_at?: string
          id?: string
          is_read?: boolean
          recipient_id?: string
          sender_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "private_messages_recipient_id_fkey"
            columns: ["recipient_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "private_messages_sender_id_fkey"
            columns: ["sender_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      user_book_access: {
        Row: {
          book_id: string
          created_at: string
          granted_by: string | null
          user_id: string
        }
        Insert: {
          book_id: string
          created_at?: string
          granted_by?: string | null
          user_id: string
        }
        Update: {
          book_id?: string
          created_at?: string
          granted_by?: string | null
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "user_book_access_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: false
            referencedRelation: "books"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "user_book_access_granted_by_fkey"
            columns: ["granted_by"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "user_book_access_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
      user_content_progress: {
        Row: {
          content_id: string
          course_id: string
          unlocked_at: string
          user_id: string
        }
        Insert: {
          content_id: string
          course_id: string
          unlocked_at?: string
          user_id: string
        }
        Update: {
          content_id?: string
          course_id?: string
          unlocked_at?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "user_content_progress_content_id_course_id_fkey"
            columns: ["content_id", "course_id"]
            isOneToOne: false
            referencedRelation: "course_content"
            referencedColumns: ["id", "course_id"]
          },
          {
            foreignKeyName: "user_content_progress_user_id_fkey"
            columns: ["user_id"]
            isOneToOne: false
            referencedRelation: "profiles"
            referencedColumns: ["id"]
          },
        ]
      }
    }
    Views: {
      profiles: {
        Row: {
          agent: boolean | null
          country: string | null
          created_at: string | null
          date_paid: string | null
          email: string | null
          expire_date: string | null
          full_name: string | null
          id: string | null
          paid: boolean | null
          role: Database["public"]["Enums"]["user_role"] | null
          student_role: Database["public"]["Enums"]["student_role"] | null
          whatsapp_number: string | null
        }
        Insert: {
          agent?: boolean | null
          country?: string | null
          created_at?: string | null
          date_paid?: string | null
          email?: string | null
          expire_date?: string | null
          full_name?: string | null
          id?: string | null
          paid?: boolean | null
          role?: Database["public"]["Enums"]["user_role"] | null
          student_role?: Database["public"]["Enums"]["student_role"] | null
          whatsapp_number?: string | null
        }
        Update: {
          agent?: boolean | null
          country?: string | null
          created_at?: string | null
          date_paid?: string | null
          email?: string | null
          expire_date?: string | null
          full_name?: string | null
          id?: string | null
          paid?: boolean | null
          role?: Database["public"]["Enums"]["user_role"] | null
          student_role?: Database["public"]["Enums"]["student_role"] | null
          whatsapp_number?: string | null
        }
        Relationships: []
      }
      user_sessions: {
        Row: {
          created_at: string | null
          device_name: string | null
          end_reason: string | null
          id: string | null
          ip_address: string | null
          is_current: boolean | null
          is_this_device: boolean | null
          last_active: string | null
          user_email: string | null
          user_full_name: string | null
          user_id: string | null
        }
        Insert: {
          created_at?: string | null
          device_name?: string | null
          end_reason?: string | null
          id?: string | null
          ip_address?: string | null
          is_current?: boolean | null
          is_this_device?: boolean | null
          last_active?: string | null
          user_email?: string | null
          user_full_name?: string | null
          user_id?: string | null
        }
        Update: {
          created_at?: string | null
          device_name?: string | null
          end_reason?: string | null
          id?: string | null
          ip_address?: string | null
          is_current?: boolean | null
          is_this_device?: boolean | null
          last_active?: string | null
          user_email?: string | null
          user_full_name?: string | null
          user_id?: string | null
        }
        Relationships: []
      }
    }
    Functions: {
      get_contact_admin: {
        Args: Record<PropertyKey, never>
        Returns: {
          full_name: string
          id: string
        }[]
      }
      get_course_outline: {
        Args: { course_id: string }
        Returns: {
          file_type: Database["public"]["Enums"]["content_file_type"]
          id: string
          lesson_position: number
          title: string
          unlocked: boolean
          unlocks_at: string
        }[]
      }
      get_course_progress: {
        Args: { course_id?: string; user_id: string }
        Returns: {
          completed: boolean
          course_id: string
          lesson_count: number
          percent: number
          unlocked_count: number
          watched_count: number
        }[]
      }
      get_course_summary: {
        Args: { course_id: string }
        Returns: {
          cover_url: string
          created_at: string
          description: string
          id: string
          lesson_count: number
          title: string
          visibility: Database["public"]["Enums"]["course_visibility"]
        }[]
      }
      get_lesson_status: {
        Args: { content_id: string }
        Returns: {
          course_id: string
          unlocked: boolean
          unlocks_at: string
        }[]
      }
      get_site_contact: { Args: Record<PropertyKey, never>; Returns: Json }
      get_user_unlocked_content: {
        Args: { course_id_param: string; user_id_param: string }
        Returns: {
          course_id: string
          created_at: string
          created_by: string | null
          description: string | null
          file_path: string | null
          file_size: number | null
          file_type: Database["public"]["Enums"]["content_file_type"]
          id: string
          order_index: number
          title: string
          video_embed_url: string | null
        }[]
        SetofOptions: {
          from: "*"
          to: "course_content"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      get_visible_course_content: {
        Args: { course_id: string; user_id: string }
        Returns: {
          course_id: string
          created_at: string
          created_by: string | null
          description: string | null
          file_path: string | null
          file_size: number | null
          file_type: Database["public"]["Enums"]["content_file_type"]
          id: string
          order_index: number
          title: string
          video_embed_url: string | null
        }[]
        SetofOptions: {
          from: "*"
          to: "course_content"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      get_visible_courses: {
        Args: { user_id: string }
        Returns: {
          cover_url: string | null
          created_at: string
          created_by: string | null
          description: string | null
          id: string
          title: string
          updated_at: string
          visibility: Database["public"]["Enums"]["course_visibility"]
        }[]
        SetofOptions: {
          from: "*"
          to: "courses"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      is_owner_account: { Args: Record<PropertyKey, never>; Returns: boolean }
      preview_unlock_schedule: {
        Args: {
          course_id: string
          days_since_access: number
          lessons_per_unlock: number
          start_delay_days: number
          unlock_interval_days: number
        }
        Returns: number
      }
      user_has_book_access: {
        Args: { book_id: string; user_id: string }
        Returns: boolean
      }
      user_has_course_access: {
        Args: { course_id: string; user_id: string }
        Returns: boolean
      }
      user_has_full_access: { Args: { user_id: string }; Returns: boolean }
    }
    Enums: {
      content_file_type:
        | "video"
        | "document"
        | "pdf"
        | "image"
        | "audio"
        | "other"
      course_visibility: "public" | "private"
      student_role: "debutant" | "intermédiaire" | "avancé"
      user_role: "user" | "admin"
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
}

type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] &
        DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] &
        DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends {
        Row: infer R
      }
      ? R
      : never
    : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Insert: infer I
    }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Insert: infer I
      }
      ? I
      : never
    : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Update: infer U
    }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Update: infer U
      }
      ? U
      : never
    : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    | keyof DefaultSchema["Enums"]
    | { schema: keyof DatabaseWithoutInternals },
  EnumName extends (DefaultSchemaEnumNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"]
    : never) = never,
> = DefaultSchemaEnumNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][DefaultSchemaEnumNameOrOptions]
    : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends (PublicCompositeTypeNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"]
    : never) = never,
> = PublicCompositeTypeNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][PublicCompositeTypeNameOrOptions]
    : never

export const Constants = {
  public: {
    Enums: {
      content_file_type: [
        "video",
        "document",
        "pdf",
        "image",
        "audio",
        "other",
      ],
      course_visibility: ["public", "private"],
      student_role: ["debutant", "intermédiaire", "avancé"],
      user_role: ["user", "admin"],
    },
  },
} as const
