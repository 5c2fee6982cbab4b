// Compiled (not run) by tests/typegen/test_typescript.py against fixture.expected.ts:
// supabase-js must type every call through the generated Database type.
import { createClient } from "@supabase/supabase-js"
import type { Database, Enums, Tables, TablesInsert, TablesUpdate } from "./fixture.expected"
import { Constants } from "./fixture.expected"

const supabase = createClient<Database>("http://127.0.0.1:8000", "anon-key")

export async function usage(): Promise<unknown[]> {
  const { data: books } = await supabase
    .from("books")
    .select("id, title, pages, author:authors!books_author_id_fkey(name)")
  const first = books?.[0]
  const title: string | undefined = first?.title
  const pages: number | null | undefined = first?.pages
  const author: { name: string } | undefined = first?.author

  const row = (author: Tables<"authors">): [string, Enums<"mood">[] | null, number | null] =>
    [author.name, author.moods, author.stats_of?.book_count ?? null]
  const insert: TablesInsert<"authors"> = { name: "only the required column" }
  const update: TablesUpdate<"books"> = { pages: 12 }
  // @ts-expect-error identity ALWAYS: never written
  const badInsert: TablesInsert<"authors"> = { name: "n", id: 3 }
  // @ts-expect-error generated column: never written
  await supabase.from("books").insert({ author_id: 1, title: "t", title_upper: "T" })
  // @ts-expect-error a view that is not updatable has no Insert
  await supabase.from("author_stats").insert({ name: "n" })
  await supabase.from("published_books").update({ title: "a view that is" })

  const mood: Enums<"mood"> = Constants.public.Enums.mood[0]
  // @ts-expect-error not a label of the enum
  const badMood: Enums<"mood"> = "angry"

  const { data: sum } = await supabase.rpc("add", { a: 1 })
  const total: number | null = sum
  // @ts-expect-error a required argument is missing
  await supabase.rpc("add", { b: 2 })
  const { data: found } = await supabase.rpc("search", { query: "x", lim: 3 })
  const rank: number | undefined = found?.[0]?.rank
  const { data: many } = await supabase.rpc("books_by", { author: 1 }).select("id, title")
  const ids: string[] | undefined = many?.map((b) => b.id)
  return [title, pages, author, row, insert, update, badInsert, mood, badMood, total, rank, ids]
}
