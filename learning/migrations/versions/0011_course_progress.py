"""Course progress in one function: watched lessons (content_views) over the lessons
unlocked to the learner (get_user_unlocked_content); a grant unlocks, never completes.

Revision ID: 0011
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0011_course_progress.sql")


def downgrade() -> None:
    run_sql_file("0011_course_progress_down.sql")
