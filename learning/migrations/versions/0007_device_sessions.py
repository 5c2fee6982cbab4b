"""Connected devices are the auth sessions: public.user_sessions becomes a view of
auth.sessions (every way in appears, ending one deletes exactly that session) plus the
recently ended ones with the reason, for the ended device to tell its user.

Revision ID: 0007
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0007_device_sessions.sql")


def downgrade() -> None:
    run_sql_file("0007_device_sessions_down.sql")
