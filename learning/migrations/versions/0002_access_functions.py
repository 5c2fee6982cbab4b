"""Access checks, RPC functions (user_has_*, get_visible_*, get_user_unlocked_content) and
the triggers that keep storage and auth sessions in step with the app's rows.

Revision ID: 0002
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0002_access_functions.sql")


def downgrade() -> None:
    run_sql_file("0002_access_functions_down.sql")
