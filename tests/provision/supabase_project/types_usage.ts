// Compiled (not run) by tests/provision/supabase_project/test_sample_project.py beside database.types.ts,
// the output of `supalite gen types typescript --local` for the sample project: supabase-js
// must type its calls through the generated Database type. Each `@ts-expect-error` line is a
// mistake tsc must refuse (the test also compiles this file without them and counts the errors).
import { createClient } from "@supabase/supabase-js"
import type { Database, Tables, TablesInsert, TablesUpdate } from "./database.types"

const supabase = createClient<Database>("http://127.0.0.1:54321", "anon-key")

export async function typedCalls(): Promise<unknown[]> {
  const { data: notes } = await supabase.from("notes").select("id, title, is_public, created_at").eq("is_public", true)
  const title: string | undefined = notes?.[0]?.title
  const isPublic: boolean | undefined = notes?.[0]?.is_public
  // @ts-expect-error a column the select did not ask for
  const notSelected = notes?.[0]?.body
  // @ts-expect-error title is text, not a number
  const wrongType: number | undefined = notes?.[0]?.title

  const row = (note: Tables<"notes">): [string, string, boolean] => [note.id, note.owner_id, note.is_public]
  // Only title is required: id, owner_id, body, is_public and created_at have defaults.
  const insert: TablesInsert<"notes"> = { title: "only the required column" }
  await supabase.from("notes").insert(insert)
  const update: TablesUpdate<"notes"> = { is_public: true }
  await supabase.from("notes").update(update).eq("id", "ada00000-0000-4000-8000-000000000001")
  // @ts-expect-error no such column
  await supabase.from("notes").insert({ title: "t", titel: "misspelt" })
  // @ts-expect-error the required column is missing
  await supabase.from("notes").insert({ body: "no title" })

  const { data: listed } = await supabase.from("public_notes").select("title, author")
  const author: string | null | undefined = listed?.[0]?.author
  const { data: withProfile } = await supabase.from("notes").select("title, profiles(username)")
  const username: string | null | undefined = withProfile?.[0]?.profiles?.username

  const { data: totals } = await supabase.rpc("note_totals")
  const { data: found } = await supabase.rpc("search_notes", { term: "garden" })
  const foundTitle: string | undefined = found?.[0]?.title
  // @ts-expect-error the argument is named term
  await supabase.rpc("search_notes", { query: "garden" })
  // @ts-expect-error no such table
  await supabase.from("note").select("*")

  return [title, isPublic, notSelected, wrongType, row, author, username, totals, foundTitle]
}
