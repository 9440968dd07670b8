"""Fixtures for the human-study tests: a fresh database per test, on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from tests.human._support import FakeClock, fresh_postgres


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'study.db'}"
        return
    url, drop = fresh_postgres(request.getfixturevalue("postgres_url"))
    yield url
    drop()
