"""The auth.* tables: one module per table holding the SQL on it."""
