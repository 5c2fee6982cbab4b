"""Public app settings as RPCs (get_contact_admin, is_owner_account, get_site_contact):
the web app learns who to message, whether the caller is the owner and how to reach the
school without any e-mail address of an account leaving the database.

Revision ID: 0004
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0004_public_settings.sql")


def downgrade() -> None:
    run_sql_file("0004_public_settings_down.sql")
