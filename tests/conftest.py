"""Shared test fixtures.

``shared_data``: the real data folder ``../shared/data`` beside the repository (tests and benchmarks may read it;
the package never does).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO.parent / "shared" / "data").resolve()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        raise RuntimeError(f"expected the shared data folder at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """URL of the PostgreSQL server `make test` starts on loopback (CREVAL_TEST_POSTGRES_URL)."""
    url = os.environ.get("CREVAL_TEST_POSTGRES_URL")
    if not url:
        raise RuntimeError("CREVAL_TEST_POSTGRES_URL is not set: run the suite with `make test`")
    return url
