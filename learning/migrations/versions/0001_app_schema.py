"""The learning site's tables, types and row-shaping triggers.

Revision ID: 0001
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0001_app_schema.sql")


def downgrade() -> None:
    run_sql_file("0001_app_schema_down.sql")
