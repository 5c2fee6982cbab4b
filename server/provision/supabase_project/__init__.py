"""A Supabase CLI project folder (`supabase/config.toml`, `migrations/`, `seed.sql`), run as `supabase start` does."""
