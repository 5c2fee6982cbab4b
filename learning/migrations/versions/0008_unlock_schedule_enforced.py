"""The unlock schedule is enforced by RLS: one definition of when each lesson opens
(course_unlock_times) behind the course_content policy, get_user_unlocked_content, the
outline RPC get_course_outline and the admin preview preview_unlock_schedule; schedule
values bounded.

Revision ID: 0008
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0008_unlock_schedule_enforced.sql")


def downgrade() -> None:
    run_sql_file("0008_unlock_schedule_enforced_down.sql")
