"""The learning site's demo data, loaded by `supalite seed` (and `make run`). Idempotent:
every row has a fixed id and is inserted with ON CONFLICT DO NOTHING; files are upserted.

Accounts (printed at the end): the owner/admin, the designated contact admin (both e-mails
from SUPALITE_APP_OWNER_EMAIL / SUPALITE_APP_CONTACT_ADMIN_EMAIL, defaults below = the
Makefile's), a learner with access and one without.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from demo_files import course_cover_jpeg, cover_jpeg, lesson_image_png, pdf_document

DEFAULT_OWNER_EMAIL = "admin@example.com"
DEFAULT_CONTACT_ADMIN_EMAIL = "prof@example.com"
PASSWORDS = {"admin": "admin-demo-123", "contact": "prof-demo-123", "learner": "eleve-demo-123"}
NAMESPACE = uuid.UUID("6f1c2a43-8d7e-4b0a-9a51-3c2e5d7f9b10")
VIDEO_EMBED = "https://iframe.mediadelivery.net/embed/12345/{}"


def fixed_id(name: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, name)


def run(seeder) -> None:
    owner_email = seeder.app_settings.get("owner_email", DEFAULT_OWNER_EMAIL)
    contact_email = seeder.app_settings.get("contact_admin_email", DEFAULT_CONTACT_ADMIN_EMAIL)
    admin = seeder.user(owner_email, PASSWORDS["admin"], user_metadata={"full_name": "Administrateur"})
    contact = seeder.user(contact_email, PASSWORDS["contact"],
                          user_metadata={"full_name": "Professeur Martin", "country": "France", "whatsapp_number": "+33612345678"})
    learner = seeder.user("eleve@example.com", PASSWORDS["learner"],
                          user_metadata={"full_name": "Awa Diallo", "country": "Sénégal",
                                         "whatsapp_number": "+221771234567", "student_role": "intermédiaire"})
    visitor = seeder.user("nouveau@example.com", PASSWORDS["learner"],
                          user_metadata={"full_name": "Jean Kouassi", "country": "Côte d'Ivoire", "whatsapp_number": "+22501020304"})
    seeder.execute("update app_private.profiles set role = 'admin' where id = any(%s)", [[admin, contact]])
    seeder.execute("update app_private.profiles set paid = true, date_paid = now(), expire_date = now() + interval '30 days'"
                   " where id = %s and not paid", [learner])

    courses = seed_courses(seeder, admin)
    seed_lessons(seeder, admin, courses)
    seed_access(seeder, admin, learner, courses)
    seed_books(seeder, admin, learner)
    seed_conversation(seeder, contact, learner, visitor)

    seeder.note(f"admin (owner):   {owner_email} / {PASSWORDS['admin']}")
    seeder.note(f"contact admin:   {contact_email} / {PASSWORDS['contact']}")
    seeder.note(f"learner (access): eleve@example.com / {PASSWORDS['learner']}")
    seeder.note(f"learner (none):   nouveau@example.com / {PASSWORDS['learner']}")


def seed_courses(seeder, admin: uuid.UUID) -> dict[str, uuid.UUID]:
    courses = {
        "public": ("Les bases de l'anglais", "Cours gratuit : salutations, chiffres, premières phrases.", "public"),
        "scheduled": ("Anglais des affaires", "Un nouveau module tous les deux jours.", "private"),
        "private": ("Préparation au TOEIC", "Entraînement complet à l'examen.", "private"),
    }
    ids = {}
    for key, (title, description, visibility) in courses.items():
        cid = fixed_id(f"course:{key}")
        cover = f"courses/{key}.jpg"
        seeder.put_object("covers", cover, course_cover_jpeg(title), "image/jpeg")
        seeder.execute(
            "insert into public.courses (id, title, description, visibility, cover_url, created_by)"
            " values (%s, %s, %s, %s, %s, %s) on conflict (id) do nothing",
            [cid, title, description, visibility, cover, admin])
        ids[key] = cid
    seeder.execute(
        "insert into public.course_unlock_schedules (course_id, unlock_interval_days, lessons_per_unlock, start_delay_days)"
        " values (%s, 2, 1, 0) on conflict (course_id) do nothing", [ids["scheduled"]])
    return ids


def seed_lessons(seeder, admin: uuid.UUID, courses: dict[str, uuid.UUID]) -> None:
    lessons = {
        "public": [("video", "Se présenter en anglais"), ("pdf", "Fiche : les nombres"), ("image", "Les couleurs")],
        "scheduled": [("video", "Le vocabulaire du bureau"), ("pdf", "Écrire un e-mail professionnel"),
                      ("image", "Organigramme d'une entreprise"), ("video", "Réussir un entretien")],
        "private": [("pdf", "Structure de l'examen"), ("video", "Compréhension orale")],
    }
    for key, items in lessons.items():
        for index, (kind, title) in enumerate(items):
            lid = fixed_id(f"lesson:{key}:{index}")
            path, size, embed = None, None, None
            if kind == "video":
                embed = VIDEO_EMBED.format(lid)
            elif kind == "pdf":
                data = pdf_document(title, ["Leçon de démonstration.", "Lesson text in English."])
                path, size = f"{courses[key]}/{index}_lesson.pdf", len(data)
                seeder.put_object("course-content", path, data, "application/pdf")
            else:
                data = lesson_image_png(title)
                path, size = f"{courses[key]}/{index}_lesson.png", len(data)
                seeder.put_object("course-content", path, data, "image/png")
            seeder.execute(
                "insert into public.course_content (id, course_id, title, description, file_path, file_type, file_size,"
                " video_embed_url, order_index, created_by) values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " on conflict (id) do nothing",
                [lid, courses[key], title, f"Leçon {index + 1}", path, kind, size, embed, index, admin])


def seed_access(seeder, admin: uuid.UUID, learner: uuid.UUID, courses: dict[str, uuid.UUID]) -> None:
    seeder.execute("insert into public.course_access (user_id, course_id, granted_by) values (%s, %s, %s)"
                   " on conflict do nothing", [learner, courses["scheduled"], admin])
    first_private = fixed_id("lesson:private:0")
    seeder.execute("insert into public.user_content_progress (user_id, course_id, content_id) values (%s, %s, %s)"
                   " on conflict do nothing", [learner, courses["private"], first_private])


def seed_books(seeder, admin: uuid.UUID, learner: uuid.UUID) -> None:
    books = [("grammaire", "Grammaire anglaise essentielle", "Toutes les règles, avec exercices corrigés."),
             ("vocabulaire", "1000 mots d'anglais", "Le vocabulaire du quotidien, classé par thème.")]
    for key, title, description in books:
        bid = fixed_id(f"book:{key}")
        pdf = pdf_document(title, [description, "Chapter 1", "Chapter 2"], pages=3)
        pdf_name, cover_name = f"1700000000000_{key}.pdf", f"books/1700000000000_{key}.jpg"
        seeder.put_object("books", pdf_name, pdf, "application/pdf")
        seeder.put_object("covers", cover_name, cover_jpeg(title), "image/jpeg")
        seeder.execute(
            "insert into public.books (id, title, description, pages, file_size, file_path, cover_url, created_by)"
            " values (%s, %s, %s, 3, %s, %s, %s, %s) on conflict (id) do nothing",
            [bid, title, description, len(pdf), pdf_name, cover_name, admin])
    seeder.execute("insert into public.user_book_access (user_id, book_id, granted_by) values (%s, %s, %s)"
                   " on conflict do nothing", [learner, fixed_id("book:grammaire"), admin])


def seed_conversation(seeder, contact: uuid.UUID, learner: uuid.UUID, visitor: uuid.UUID) -> None:
    public_lesson = fixed_id("lesson:public:1")
    comment = fixed_id("comment:1")
    seeder.execute("insert into public.content_comments (id, content_id, user_id, content) values (%s, %s, %s, %s)"
                   " on conflict (id) do nothing", [comment, public_lesson, learner, "Merci, la fiche est très claire !"])
    seeder.execute("insert into public.content_comments (id, content_id, user_id, content) values (%s, %s, %s, %s)"
                   " on conflict (id) do nothing", [fixed_id("comment:2"), public_lesson, visitor, "Comment prononce-t-on « thirteen » ?"])
    seeder.execute("insert into public.comment_replies (id, comment_id, user_id, content) values (%s, %s, %s, %s)"
                   " on conflict (id) do nothing", [fixed_id("reply:1"), comment, contact, "Avec plaisir, bon travail !"])
    messages = [(learner, contact, "Bonjour, comment accéder au cours TOEIC ?", True),
                (contact, learner, "Bonjour Awa, je vous ai ouvert la première leçon.", False),
                (visitor, contact, "Bonjour, quels sont les tarifs ?", False)]
    for index, (sender, recipient, text, read) in enumerate(messages):
        seeder.execute("insert into public.private_messages (id, sender_id, recipient_id, content, is_read)"
                       " values (%s, %s, %s, %s, %s) on conflict (id) do nothing",
                       [fixed_id(f"message:{index}"), sender, recipient, text, read])

