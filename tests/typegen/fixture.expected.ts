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
      a_table: {
        Row: {
          id: number
          zeta_id: number | null
        }
        Insert: {
          id: number
          zeta_id?: number | null
        }
        Update: {
          id?: number
          zeta_id?: number | null
        }
        Relationships: [
          {
            foreignKeyName: "a_table_zeta_id_fkey"
            columns: ["zeta_id"]
            isOneToOne: false
            referencedRelation: "Zeta_table"
            referencedColumns: ["id"]
          },
        ]
      }
      authors: {
        Row: {
          born: string | null
          created_at: string
          "display name": string | null
          email: string | null
          extra: Json | null
          home: Database["public"]["CompositeTypes"]["address"] | null
          id: number
          mood: Database["public"]["Enums"]["mood"]
          moods: Database["public"]["Enums"]["mood"][] | null
          name: string
          settings: NonNullable<Json>
          books_of: {
            author_id: number
            co_author_id: number | null
            cover: string | null
            id: string
            legacy_id: number
            mood: "calm" | null
            pages: number | null
            price: number | null
            published: boolean
            rating: number | null
            reading_time: string | null
            scores: number[] | null
            serial_no: number
            tags: string[]
            title: string
            title_upper: string | null
          } | null
          stats_of: {
            author_id: number | null
            book_count: number | null
            name: string | null
          } | null
        }
        Insert: {
          born?: string | null
          created_at?: string
          "display name"?: string | null
          email?: string | null
          extra?: Json | null
          home?: Database["public"]["CompositeTypes"]["address"] | null
          id?: never
          mood?: Database["public"]["Enums"]["mood"]
          moods?: Database["public"]["Enums"]["mood"][] | null
          name: string
          settings?: NonNullable<Json>
        }
        Update: {
          born?: string | null
          created_at?: string
          "display name"?: string | null
          email?: string | null
          extra?: Json | null
          home?: Database["public"]["CompositeTypes"]["address"] | null
          id?: never
          mood?: Database["public"]["Enums"]["mood"]
          moods?: Database["public"]["Enums"]["mood"][] | null
          name?: string
          settings?: NonNullable<Json>
        }
        Relationships: []
      }
      book_details: {
        Row: {
          book_id: string
          summary: string | null
        }
        Insert: {
          book_id: string
          summary?: string | null
        }
        Update: {
          book_id?: string
          summary?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "book_details_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: true
            referencedRelation: "book_inbox"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "book_details_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: true
            referencedRelation: "book_titles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "book_details_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: true
            referencedRelation: "books"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "book_details_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: true
            referencedRelation: "published_books"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "book_details_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: true
            referencedRelation: "recent_published"
            referencedColumns: ["id"]
          },
        ]
      }
      books: {
        Row: {
          author_id: number
          co_author_id: number | null
          cover: string | null
          id: string
          legacy_id: number
          mood: "calm" | null
          pages: number | null
          price: number | null
          published: boolean
          rating: number | null
          reading_time: string | null
          scores: number[] | null
          serial_no: number
          tags: string[]
          title: string
          title_upper: string | null
          full_title: string | null
        }
        Insert: {
          author_id: number
          co_author_id?: number | null
          cover?: string | null
          id?: string
          legacy_id?: number
          mood?: "calm" | null
          pages?: number | null
          price?: number | null
          published?: boolean
          rating?: number | null
          reading_time?: string | null
          scores?: number[] | null
          serial_no?: number
          tags?: string[]
          title: string
          title_upper?: never
        }
        Update: {
          author_id?: number
          co_author_id?: number | null
          cover?: string | null
          id?: string
          legacy_id?: number
          mood?: "calm" | null
          pages?: number | null
          price?: number | null
          published?: boolean
          rating?: number | null
          reading_time?: string | null
          scores?: number[] | null
          serial_no?: number
          tags?: string[]
          title?: string
          title_upper?: never
        }
        Relationships: [
          {
            foreignKeyName: "books_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "author_stats"
            referencedColumns: ["author_id"]
          },
          {
            foreignKeyName: "books_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "authors"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "books_co_author_id_fkey"
            columns: ["co_author_id"]
            isOneToOne: false
            referencedRelation: "author_stats"
            referencedColumns: ["author_id"]
          },
          {
            foreignKeyName: "books_co_author_id_fkey"
            columns: ["co_author_id"]
            isOneToOne: false
            referencedRelation: "authors"
            referencedColumns: ["id"]
          },
        ]
      }
      editions: {
        Row: {
          book_id: string
          number: number
          previous_number: number | null
        }
        Insert: {
          book_id: string
          number: number
          previous_number?: number | null
        }
        Update: {
          book_id?: string
          number?: number
          previous_number?: number | null
        }
        Relationships: [
          {
            foreignKeyName: "editions_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: false
            referencedRelation: "book_inbox"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "editions_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: false
            referencedRelation: "book_titles"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "editions_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: false
            referencedRelation: "books"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "editions_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: false
            referencedRelation: "published_books"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "editions_book_id_fkey"
            columns: ["book_id"]
            isOneToOne: false
            referencedRelation: "recent_published"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "editions_book_id_previous_number_fkey"
            columns: ["book_id", "previous_number"]
            isOneToOne: false
            referencedRelation: "editions"
            referencedColumns: ["book_id", "number"]
          },
        ]
      }
      "odd-name": {
        Row: {
          $dollar: string | null
          "123abc": string | null
          id: number
          Mixed: string | null
          quote: Database["public"]["Enums"]["quoting"] | null
          status:
            | Database["public"]["Enums"]["extremely_long_status_enumeration_name"]
            | null
          statuses: Database["public"]["Enums"]["extremely_long_status_enumeration_name"][]
        }
        Insert: {
          $dollar?: string | null
          "123abc"?: string | null
          id: number
          Mixed?: string | null
          quote?: Database["public"]["Enums"]["quoting"] | null
          status?:
            | Database["public"]["Enums"]["extremely_long_status_enumeration_name"]
            | null
          statuses?: Database["public"]["Enums"]["extremely_long_status_enumeration_name"][]
        }
        Update: {
          $dollar?: string | null
          "123abc"?: string | null
          id?: number
          Mixed?: string | null
          quote?: Database["public"]["Enums"]["quoting"] | null
          status?:
            | Database["public"]["Enums"]["extremely_long_status_enumeration_name"]
            | null
          statuses?: Database["public"]["Enums"]["extremely_long_status_enumeration_name"][]
        }
        Relationships: []
      }
      Zeta_table: {
        Row: {
          id: number
        }
        Insert: {
          id: number
        }
        Update: {
          id?: number
        }
        Relationships: []
      }
    }
    Views: {
      author_stats: {
        Row: {
          author_id: number | null
          book_count: number | null
          name: string | null
        }
        Relationships: []
      }
      book_inbox: {
        Row: {
          id: string | null
          title: string | null
        }
        Insert: {
          id?: string | null
          title?: string | null
        }
        Update: {
          id?: string | null
          title?: string | null
        }
        Relationships: []
      }
      book_titles: {
        Row: {
          id: string | null
          title: string | null
        }
        Relationships: []
      }
      published_books: {
        Row: {
          author_id: number | null
          id: string | null
          pages: number | null
          title: string | null
          title_upper: string | null
        }
        Insert: {
          author_id?: number | null
          id?: string | null
          pages?: number | null
          title?: string | null
          title_upper?: string | null
        }
        Update: {
          author_id?: number | null
          id?: string | null
          pages?: number | null
          title?: string | null
          title_upper?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "books_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "author_stats"
            referencedColumns: ["author_id"]
          },
          {
            foreignKeyName: "books_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "authors"
            referencedColumns: ["id"]
          },
        ]
      }
      recent_published: {
        Row: {
          author_id: number | null
          id: string | null
          pages: number | null
          title: string | null
          title_upper: string | null
        }
        Insert: {
          author_id?: number | null
          id?: string | null
          pages?: number | null
          title?: string | null
          title_upper?: string | null
        }
        Update: {
          author_id?: number | null
          id?: string | null
          pages?: number | null
          title?: string | null
          title_upper?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "books_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "author_stats"
            referencedColumns: ["author_id"]
          },
          {
            foreignKeyName: "books_author_id_fkey"
            columns: ["author_id"]
            isOneToOne: false
            referencedRelation: "authors"
            referencedColumns: ["id"]
          },
        ]
      }
    }
    Functions: {
      add: { Args: { a: number; b?: number }; Returns: number }
      address_of: {
        Args: { author: number }
        Returns: Database["public"]["CompositeTypes"]["address"]
        SetofOptions: {
          from: "*"
          to: "address"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      addresses: {
        Args: Record<PropertyKey, never>
        Returns: Database["public"]["CompositeTypes"]["address"][]
        SetofOptions: {
          from: "*"
          to: "address"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      all_moods: {
        Args: Record<PropertyKey, never>
        Returns: Database["public"]["Enums"]["mood"][]
      }
      books_by: {
        Args: {
          author: number
          max_rows?: number
          moods?: Database["public"]["Enums"]["mood"][]
        }
        Returns: {
          author_id: number
          co_author_id: number | null
          cover: string | null
          id: string
          legacy_id: number
          mood: "calm" | null
          pages: number | null
          price: number | null
          published: boolean
          rating: number | null
          reading_time: string | null
          scores: number[] | null
          serial_no: number
          tags: string[]
          title: string
          title_upper: string | null
        }[]
        SetofOptions: {
          from: "*"
          to: "books"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      books_of: {
        Args: { "": Database["public"]["Tables"]["authors"]["Row"] }
        Returns: {
          author_id: number
          co_author_id: number | null
          cover: string | null
          id: string
          legacy_id: number
          mood: "calm" | null
          pages: number | null
          price: number | null
          published: boolean
          rating: number | null
          reading_time: string | null
          scores: number[] | null
          serial_no: number
          tags: string[]
          title: string
          title_upper: string | null
        }[]
        SetofOptions: {
          from: "authors"
          to: "books"
          isOneToOne: false
          isSetofReturn: true
        }
      }
      clash:
        | {
            Args: { x: number }
            Returns: {
              error: true
            } & "Could not choose the best candidate function between: public.clash(x => int4), public.clash(x => text). Try renaming the parameters or the function itself in the database so function overloading can be resolved"
          }
        | {
            Args: { x: string }
            Returns: {
              error: true
            } & "Could not choose the best candidate function between: public.clash(x => int4), public.clash(x => text). Try renaming the parameters or the function itself in the database so function overloading can be resolved"
          }
      echo: { Args: { "": Json }; Returns: Json }
      first_book: {
        Args: { author: number }
        Returns: {
          author_id: number
          co_author_id: number | null
          cover: string | null
          id: string
          legacy_id: number
          mood: "calm" | null
          pages: number | null
          price: number | null
          published: boolean
          rating: number | null
          reading_time: string | null
          scores: number[] | null
          serial_no: number
          tags: string[]
          title: string
          title_upper: string | null
        }
        SetofOptions: {
          from: "*"
          to: "books"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      full_title: {
        Args: { "": Database["public"]["Tables"]["books"]["Row"] }
        Returns: {
          error: true
        } & "the function public.full_title with parameter or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache"
      }
      greet: { Args: { ""?: string }; Returns: string }
      long_function_name_with_many_arguments: {
        Args: {
          first_argument: string
          second_argument?: number
          third_argument?: Database["public"]["Enums"]["extremely_long_status_enumeration_name"]
        }
        Returns: Database["public"]["Enums"]["extremely_long_status_enumeration_name"][]
      }
      minmax: { Args: { vals: number[] }; Returns: Record<string, unknown> }
      mood_of: {
        Args: { author: number }
        Returns: Database["public"]["Enums"]["mood"]
      }
      noop: { Args: Record<PropertyKey, never>; Returns: undefined }
      one_book: {
        Args: { book: string }
        Returns: {
          author_id: number
          co_author_id: number | null
          cover: string | null
          id: string
          legacy_id: number
          mood: "calm" | null
          pages: number | null
          price: number | null
          published: boolean
          rating: number | null
          reading_time: string | null
          scores: number[] | null
          serial_no: number
          tags: string[]
          title: string
          title_upper: string | null
        }
        SetofOptions: {
          from: "*"
          to: "books"
          isOneToOne: true
          isSetofReturn: true
        }
      }
      over:
        | { Args: { a: number }; Returns: number }
        | { Args: { b: string }; Returns: string }
      ping: { Args: Record<PropertyKey, never>; Returns: string }
      search:
        | {
            Args: { query: string }
            Returns: {
              id: string
              rank: number
              title: string
            }[]
          }
        | {
            Args: { lim: number; query: string }
            Returns: {
              id: string
              rank: number
              title: string
            }[]
          }
      stats_of: {
        Args: { "": Database["public"]["Tables"]["authors"]["Row"] }
        Returns: {
          author_id: number | null
          book_count: number | null
          name: string | null
        }
        SetofOptions: {
          from: "authors"
          to: "author_stats"
          isOneToOne: true
          isSetofReturn: false
        }
      }
      tag_list: { Args: Record<PropertyKey, never>; Returns: string[] }
    }
    Enums: {
      extremely_long_status_enumeration_name:
        | "pending_review"
        | "approved_for_publication"
        | "rejected_by_editor"
        | "archived_permanently"
      mood: "happy" | "sad" | "mixed-feelings"
      quoting: "it's" | 'say "hi"' | "back\\slash" | "plain"
    }
    CompositeTypes: {
      address: {
        street: string | null
        zip: number | null
        mood: Database["public"]["Enums"]["mood"] | null
        tags: string[] | null
      }
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
      extremely_long_status_enumeration_name: [
        "pending_review",
        "approved_for_publication",
        "rejected_by_editor",
        "archived_permanently",
      ],
      mood: ["happy", "sad", "mixed-feelings"],
      quoting: ["it's", 'say "hi"', "back\\slash", "plain"],
    },
  },
} as const
