"""No account's e-mail is readable by others: learners find the administrator to message
through get_contact_admin() (0004), so the contact admin's e-mail exception goes.

Revision ID: 0005
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sql_files import run_sql_file

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql_file("0005_profiles_email_private.sql")


def downgrade() -> None:
    run_sql_file("0005_profiles_email_private_down.sql")
