create table "public"."note_likes" (
    "note_id" uuid not null,
    "user_id" uuid not null default auth.uid(),
    "created_at" timestamp with time zone not null default now()
);


alter table "public"."note_likes" enable row level security;

CREATE UNIQUE INDEX note_likes_pkey ON public.note_likes USING btree (note_id, user_id);

alter table "public"."note_likes" add constraint "note_likes_pkey" PRIMARY KEY using index "note_likes_pkey";

alter table "public"."note_likes" add constraint "note_likes_note_id_fkey" FOREIGN KEY (note_id) REFERENCES notes(id) ON DELETE CASCADE not valid;

alter table "public"."note_likes" validate constraint "note_likes_note_id_fkey";

alter table "public"."note_likes" add constraint "note_likes_user_id_fkey" FOREIGN KEY (user_id) REFERENCES profiles(id) ON DELETE CASCADE not valid;

alter table "public"."note_likes" validate constraint "note_likes_user_id_fkey";

grant delete on table "public"."note_likes" to "anon";

grant insert on table "public"."note_likes" to "anon";

grant references on table "public"."note_likes" to "anon";

grant select on table "public"."note_likes" to "anon";

grant trigger on table "public"."note_likes" to "anon";

grant truncate on table "public"."note_likes" to "anon";

grant update on table "public"."note_likes" to "anon";

grant delete on table "public"."note_likes" to "authenticated";

grant insert on table "public"."note_likes" to "authenticated";

grant references on table "public"."note_likes" to "authenticated";

grant select on table "public"."note_likes" to "authenticated";

grant trigger on table "public"."note_likes" to "authenticated";

grant truncate on table "public"."note_likes" to "authenticated";

grant update on table "public"."note_likes" to "authenticated";

grant delete on table "public"."note_likes" to "service_role";

grant insert on table "public"."note_likes" to "service_role";

grant references on table "public"."note_likes" to "service_role";

grant select on table "public"."note_likes" to "service_role";

grant trigger on table "public"."note_likes" to "service_role";

grant truncate on table "public"."note_likes" to "service_role";

grant update on table "public"."note_likes" to "service_role";

create policy "Likes are readable by anyone"
on "public"."note_likes"
as permissive
for select
to public
using (true);


create policy "Users like as themselves"
on "public"."note_likes"
as permissive
for insert
to authenticated
with check ((( SELECT auth.uid() AS uid) = user_id));


create policy "Users take back their likes"
on "public"."note_likes"
as permissive
for delete
to authenticated
using ((( SELECT auth.uid() AS uid) = user_id));



