"""A course's public summary (title, description, cover, visibility, lesson count) by its
id, for visitors following a shared link to a private course.

Revision ID: 0012
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0012_course_summary.sql")


def downgrade() -> None:
    run_sql_file("0012_course_summary_down.sql")
