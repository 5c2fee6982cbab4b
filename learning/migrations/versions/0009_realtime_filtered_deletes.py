"""Filtered live lists see deletions: content_comments and private_messages carry their
whole row as replica identity, so a DELETE can match a subscriber's filter.

Revision ID: 0009
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0009_realtime_filtered_deletes.sql")


def downgrade() -> None:
    run_sql_file("0009_realtime_filtered_deletes_down.sql")
