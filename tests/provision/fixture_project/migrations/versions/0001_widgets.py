from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.execute("create table public.widgets (id bigint generated always as identity primary key, name text not null)")


def downgrade() -> None:
    op.execute("drop table public.widgets")
