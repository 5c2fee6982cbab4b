"""An update through public.profiles reports what the database did: id, email and
created_at are refused (42501) instead of being silently ignored, and the row returned is
the one stored.

Revision ID: 0006
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0006_profiles_view_reports_writes.sql")


def downgrade() -> None:
    run_sql_file("0006_profiles_view_reports_writes_down.sql")
