"""Alembic environment for the creval study database (run by creval.human.store.migrate)."""

from alembic import context
from sqlalchemy import create_engine

from creval.human.models import metadata

config = context.config


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        engine = create_engine(config.get_main_option("sqlalchemy.url"))
        with engine.connect() as conn:
            _migrate(conn)
        return
    _migrate(connection)


def _migrate(connection) -> None:
    context.configure(connection=connection, target_metadata=metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


run()
