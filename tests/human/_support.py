"""Helpers shared by the human-study tests (and the browser tests)."""

from __future__ import annotations

import uuid

from creval.human.config import parse_study
from creval.human.designs import build_tasks, validate_items


class FakeClock:
    """A clock tests can move forward (leases expire without waiting)."""

    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def fresh_postgres(base_url: str):
    """Create an empty database next to the test database; return (url, drop function)."""
    import psycopg

    name = f"creval_h_{uuid.uuid4().hex[:12]}"
    plain = base_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    head, _, _ = base_url.rpartition("/")
    url = f"{head}/{name}"

    def drop() -> None:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return url, drop


def make_study(store, study_type: str = "challenge_response", n: int = 4, k: int = 2, annotators=3, **extra):
    """Create a small study of ``study_type`` in ``store``; return the Created record."""
    rows = example_rows(study_type, n)
    cfg = parse_study({"name": extra.pop("name", f"s-{study_type}"), "type": study_type, "items": "x.jsonl",
                       "k": k, "annotators": annotators, **extra})
    tasks = build_tasks(study_type, validate_items(study_type, rows), seed=cfg.seed)
    return store.create_study(cfg, tasks)


ARTISTS = [f"artist{i:02d}" for i in range(13)]


def example_rows(study_type: str, n: int) -> list[dict]:
    if study_type == "challenge_response":
        return [{"id": f"r{i}", "system": f"secret-sys-{i % 2}", "challenge": f"challenge line {i}",
                 "response": f"response line {i}"} for i in range(n)]
    if study_type == "fluency_coherence":
        return [{"id": f"v{i}", "system": f"secret-sys-{i % 2}",
                 "text": f"first line of verse {i}\nsecond line here\nthird and last"} for i in range(n)]
    if study_type == "post_editing":
        return [{"id": f"e{i}", "system": f"secret-sys-{i % 2}", "text": f"the cat sat on mat {i}\nsecond line",
                 "source": "write about a cat"} for i in range(n)]
    if study_type == "side_by_side":
        return [{"id": f"p{i}", "context": f"a picture of hills {i}",
                 "outputs": [{"system": f"secret-sys-{j}", "text": f"poem {i} by {j}\nline two"} for j in range(3)]}
                for i in range(n)]
    if study_type == "style_matching":
        rows = [{"id": f"g{i}", "role": "evaluated", "artist": ARTISTS[i % 13], "text": f"generated verse {i}",
                 "system": f"secret-sys-{i % 2}"} for i in range(n)]
        for a in ARTISTS:
            for j in range(2):
                rows.append({"id": f"c-{a}-{j}", "role": "candidate", "artist": a, "text": f"authentic verse {j} from the pool {ARTISTS.index(a) * 2 + j}"})
        return rows
    raise ValueError(study_type)
