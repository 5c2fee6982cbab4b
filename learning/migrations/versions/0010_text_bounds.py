"""Every free text the site stores is bounded by a check constraint named
<table>_<column>_max_length; rows already over a bound are fitted first, their originals
kept in app_private.text_bound_originals.

Revision ID: 0010
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0010_text_bounds.sql")


def downgrade() -> None:
    run_sql_file("0010_text_bounds_down.sql")
