"""Load run of the study web app: many concurrent annotators on loopback, with and without a server crash.

    .venv/bin/python bench/webapp_load.py                       # 50 annotators, 5,000 judgements, SQLite
    .venv/bin/python bench/webapp_load.py --db postgresql+psycopg://creval@127.0.0.1:55432/creval_test
    .venv/bin/python bench/webapp_load.py --judgements 1000 --annotators 20   # a quicker run

Each phase creates a fresh challenge-response study (judgements / k items, k = 2), starts the real server
(uvicorn subprocess on 127.0.0.1), and lets N annotator threads (httpx clients with their own cookies) follow
their invite link, read the guidelines and then GET a page / POST its answer until nothing is left. Phase 2
kills the server with SIGKILL when half the judgements are in and restarts it; clients whose request failed
retry (a retried POST is answered "already saved" when the first one had committed).

Printed: throughput (accepted judgements per second of wall time), latency percentiles of the POST and of the
GET, and the checks made on the database afterwards: every item has exactly k responses, no (item, annotator)
pair twice, and every submit the server confirmed is stored with the answer the client sent (zero lost, zero
duplicated). The run is bounded (--max-seconds per phase) and listens on loopback only. There is no anchor
library for this capability, so there is no ratio: the figures are absolute.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from creval.human.config import parse_study
from creval.human.designs import build_tasks, validate_items
from creval.human.store import Store

ACTION = re.compile(r'action="(/task/(\d+))"')
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, db: str, port: int, log: Path) -> None:
        self.db, self.port, self.log = db, port, log
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = dict(os.environ, CREVAL_DB=self.db)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "creval.human.web.app:app_from_env", "--factory", "--host",
             "127.0.0.1", "--port", str(self.port), "--log-level", "warning", "--no-access-log"],
            env=env, stdout=self.log.open("ab"), stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError(f"server did not start; see {self.log}")

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    i = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[i]


def phase(db: str, n_ann: int, n_judgements: int, k: int, crash: bool, max_seconds: float, workdir: Path) -> dict:
    name = f"load-{'crash' if crash else 'plain'}-{int(time.time() * 1000) % 10**9}"
    n_items = n_judgements // k
    rows = [{"id": f"r{i}", "system": f"sys{i % 3}", "challenge": f"challenge {i}", "response": f"response {i}"}
            for i in range(n_items)]
    cfg = parse_study({"name": name, "type": "challenge_response", "items": "-", "k": k, "annotators": n_ann,
                       "lease_minutes": 2})
    store = Store(db)
    created = store.create_study(cfg, build_tasks(cfg.type, validate_items(cfg.type, rows)))
    port = free_port()
    server = Server(db, port, workdir / f"{name}.log")
    server.start()
    base = f"http://127.0.0.1:{port}"
    lock = threading.Lock()
    confirmed: dict[int, dict] = {}  # assignment id -> answer the server confirmed
    post_lat: list[float] = []
    get_lat: list[float] = []
    errors: list[str] = []
    retries = [0]
    accepted = [0]
    stop_at = time.time() + max_seconds

    def request(client: httpx.Client, method: str, url: str, **kw) -> httpx.Response:
        while True:
            if time.time() > stop_at:
                raise TimeoutError("phase ran past --max-seconds")
            try:
                t0 = time.perf_counter()
                r = client.request(method, url, **kw)
                dt = time.perf_counter() - t0
                with lock:
                    (post_lat if method == "POST" else get_lat).append(dt)
                return r
            except (httpx.TransportError, httpx.RemoteProtocolError):
                with lock:
                    retries[0] += 1
                time.sleep(0.2)  # server down (killed): retry the same request

    def annotator(token: str, seed: int) -> None:
        try:
            with httpx.Client(base_url=base, timeout=30, follow_redirects=True) as c:
                r = request(c, "GET", f"/join/{token}")
                request(c, "POST", "/guidelines", data={"csrf": CSRF.search(r.text).group(1)})
                n = seed
                while True:
                    r = request(c, "GET", "/task")
                    m = ACTION.search(r.text)
                    if not m:
                        if 'data-testid="done"' not in r.text:
                            errors.append(f"unexpected page {r.status_code}: {r.text[:200]}")
                        return
                    n += 1
                    ans = {"fluency": str(n % 3), "rhyming": str((n // 3) % 3)}
                    r = request(c, "POST", m.group(1), data={"csrf": CSRF.search(r.text).group(1), **ans},
                                follow_redirects=False)
                    loc = r.headers.get("location", "")
                    if r.status_code == 303 and loc in ("/task?m=saved", "/task?m=dup"):
                        with lock:
                            if int(m.group(2)) in confirmed and loc.endswith("saved"):
                                errors.append(f"assignment {m.group(2)} accepted twice")
                            # a 'dup' answer after a crash means the first POST committed with this answer
                            confirmed.setdefault(int(m.group(2)), {k2: int(v) for k2, v in ans.items()})
                            if loc.endswith("saved"):
                                accepted[0] += 1
                    elif r.status_code == 303 and loc == "/task?m=stale":
                        pass
                    else:
                        errors.append(f"submit answered {r.status_code} {loc}")
        except Exception as exc:  # reported below
            errors.append(f"{exc.__class__.__name__}: {exc}")

    threads = [threading.Thread(target=annotator, args=(tok, i * 7)) for i, tok in enumerate(created.invites.values())]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    crashed_at = None
    restart_s = None
    if crash:
        while accepted[0] < n_judgements // 2 and any(t.is_alive() for t in threads):
            time.sleep(0.05)
        crashed_at = accepted[0]
        server.kill()
        t_kill = time.perf_counter()
        time.sleep(0.5)
        server.start()
        restart_s = time.perf_counter() - t_kill
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    server.stop()

    # ---- checks on the database
    responses = store.responses(name)
    tasks = store.tasks(name)
    pairs = [(r["key"], r["annotator"]) for r in responses]
    by_asg = {r["id"]: r["answer"] for r in responses}
    lost = [a for a in confirmed if a not in by_asg]
    wrong = [a for a, ans in confirmed.items() if a in by_asg and by_asg[a] != ans]
    result = {
        "phase": "kill -9 + restart midway" if crash else "steady",
        "annotators": n_ann, "judgements": len(responses), "expected": n_items * k, "wall_s": wall,
        "throughput": len(responses) / wall, "post_p50_ms": 1000 * percentile(post_lat, 50),
        "post_p95_ms": 1000 * percentile(post_lat, 95), "post_p99_ms": 1000 * percentile(post_lat, 99),
        "get_p95_ms": 1000 * percentile(get_lat, 95), "requests": len(post_lat) + len(get_lat),
        "exactly_k": all(t["done_count"] == k for t in tasks) and
        all(c == k for c in _counts(responses).values()) and len(_counts(responses)) == n_items,
        "duplicates": len(pairs) - len(set(pairs)), "lost": len(lost), "answer_mismatch": len(wrong),
        "confirmed": len(confirmed), "client_retries": retries[0], "crashed_at": crashed_at,
        "restart_s": restart_s, "errors": errors[:5], "n_errors": len(errors),
    }
    store.close()
    return result


def fresh_postgres_database(url: str):
    """Create an empty database on the server of ``url``; return its URL and a function that drops it."""
    import psycopg

    name = f"creval_load_{os.getpid()}_{int(time.time())}"
    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return f"{url.rpartition('/')[0]}/{name}", drop


def _counts(responses: list[dict]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in responses:
        out[r["key"]] = out.get(r["key"], 0) + 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", help="database URL (default: a fresh SQLite file in a temp folder)")
    ap.add_argument("--annotators", type=int, default=50)
    ap.add_argument("--judgements", type=int, default=5000)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--max-seconds", type=float, default=900)
    ap.add_argument("--only", choices=["steady", "crash"], help="run one phase only")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="creval-load-") as tmp:
        workdir = Path(tmp)
        db = args.db or f"sqlite:///{workdir / 'load.db'}"
        drop = None
        if db.startswith("postgresql"):
            db, drop = fresh_postgres_database(db)  # never touch the tables of the database given
        results = []
        for crash in (False, True):
            if args.only and args.only != ("crash" if crash else "steady"):
                continue
            res = phase(db, args.annotators, args.judgements, args.k, crash, args.max_seconds, workdir)
            results.append(res)
            print(f"== {res['phase']} ({'PostgreSQL' if db.startswith('postgresql') else 'SQLite'}): "
                  f"{res['annotators']} annotators, {res['judgements']}/{res['expected']} judgements in "
                  f"{res['wall_s']:.1f} s -> {res['throughput']:.0f} judgements/s")
            print(f"   POST latency p50 {res['post_p50_ms']:.1f} ms, p95 {res['post_p95_ms']:.1f} ms, "
                  f"p99 {res['post_p99_ms']:.1f} ms; GET p95 {res['get_p95_ms']:.1f} ms; {res['requests']} requests")
            print(f"   exactly k: {res['exactly_k']}; duplicated: {res['duplicates']}; lost: {res['lost']}; "
                  f"answer mismatches: {res['answer_mismatch']}; client retries: {res['client_retries']}"
                  + (f"; killed at {res['crashed_at']} judgements, back up in {res['restart_s']:.1f} s"
                     if res["crashed_at"] is not None else ""))
            if res["n_errors"]:
                print(f"   {res['n_errors']} client errors, e.g. {res['errors']}")
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
        if drop:
            drop()
    ok = all(r["exactly_k"] and not r["duplicates"] and not r["lost"] and not r["answer_mismatch"]
             and r["judgements"] == r["expected"] and not r["n_errors"] for r in results)
    print("OK: zero lost, zero duplicated" if ok else "FAILED: see the figures above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
