"""Live updates: the tables the web app subscribes to join the supabase_realtime publication.

Revision ID: 0003
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0003_realtime_publication.sql")


def downgrade() -> None:
    run_sql_file("0003_realtime_publication_down.sql")
