"""Human studies: ``creval study create|status|export|results|invite`` and ``creval serve``."""

from __future__ import annotations

from pathlib import Path

import click

from creval.cli import main
from creval.errors import InputError

DB_HELP = "Database URL (SQLite file or postgresql+psycopg://...). Also read from $CREVAL_DB."
_db_option = click.option("--db", "db", envvar="CREVAL_DB", default="sqlite:///creval-studies.db",
                          show_default=True, help=DB_HELP)


def _console():
    from rich.console import Console

    return Console()


def _store(db: str):
    from creval.human.store import Store

    try:
        return Store(db)
    except InputError:
        raise
    except Exception as exc:  # connection refused, bad file path...
        raise InputError(f"cannot open the study database {db!r}: {exc.__class__.__name__}: {exc}") from None


@main.group()
def study() -> None:
    """Run human evaluation studies: create one from a study file, watch it, export and score it.

    \b
    creval study create study.yaml            # validate, load the items, print invite links
    creval serve                              # start the web app (http://127.0.0.1:8000)
    creval study status NAME                  # progress per annotator
    creval study export NAME --out DIR        # tidy judgements, unit x rater matrices, design JSON
    creval study results NAME                 # scores and agreement statistics
    """


@study.command("example")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("example-study"),
              show_default=True, help="Folder for study.yaml and items.jsonl.")
@click.option("--type", "study_type", default="challenge_response", show_default=True,
              type=click.Choice(["fluency_coherence", "style_matching", "challenge_response", "side_by_side",
                                 "post_editing"]))
def example_cmd(out_dir: Path, study_type: str) -> None:
    """Write a small example study (study.yaml + items.jsonl) to try the web app with."""
    from creval.human.example import write_example

    path = write_example(out_dir, study_type)
    click.echo(f"wrote {path} and {path.parent / 'items.jsonl'}; next: creval study create {path}")


@study.command("create")
@click.argument("study_file", type=click.Path(path_type=Path))
@_db_option
@click.option("--base-url", default="http://127.0.0.1:8000", show_default=True,
              help="Address annotators will reach the server at (used to print the invite links).")
@click.option("--invites", "invites_path", type=click.Path(path_type=Path),
              help="Write the invite links to this CSV (default: NAME-invites.csv beside the study file).")
@click.option("--check", is_flag=True, help="Only validate the study file and items; store nothing.")
def create_cmd(study_file: Path, db: str, base_url: str, invites_path: Path | None, check: bool) -> None:
    """Validate STUDY_FILE and its items file, store the study and make one invite link per annotator."""
    from creval.human.config import load_study
    from creval.human.designs import load_items

    cfg = load_study(study_file)
    items_path = (study_file.parent / cfg.items) if not Path(cfg.items).is_absolute() else Path(cfg.items)
    tasks = load_items(cfg.type, items_path, seed=cfg.seed)
    con = _console()
    if check:
        con.print(f"[green]ok[/green]: {cfg.type} study {cfg.name!r} with {len(tasks)} pages, k = {cfg.k_effective}")
        return
    store = _store(db)
    created = store.create_study(cfg, tasks)
    base = base_url.rstrip("/")
    path = invites_path or study_file.parent / f"{cfg.name}-invites.csv"
    import csv

    from creval.corpus.io import atomic_write

    with atomic_write(path) as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["annotator", "link"])
        for name, tok in created.invites.items():
            w.writerow([name, f"{base}/join/{tok}"])
    con.print(f"Created {cfg.type} study [bold]{cfg.name}[/bold]: {len(tasks)} pages, k = {cfg.k_effective}, "
              f"{len(created.invites)} annotators.")
    # plain echo: rich would wrap the long links and tokens
    click.echo(f"Invite links (one per annotator, keep them private): {path}")
    click.echo(f"Admin page: {base}/admin/{cfg.name}/login?token={created.admin_token}")
    click.echo(f"Admin token (shown once; only its hash is stored): {created.admin_token}")
    click.echo(f"Start the server with: creval serve --db {db}")


@study.command("invite")
@click.argument("name")
@click.argument("annotators", nargs=-1, required=True)
@_db_option
@click.option("--base-url", default="http://127.0.0.1:8000", show_default=True)
def invite_cmd(name: str, annotators: tuple[str, ...], db: str, base_url: str) -> None:
    """Add annotators (invite links) to study NAME."""
    store = _store(db)
    invites = store.add_annotators(name, list(annotators))
    for who, tok in invites.items():
        click.echo(f"{who}\t{base_url.rstrip('/')}/join/{tok}")


@study.command("status")
@click.argument("name", required=False)
@_db_option
def status_cmd(name: str | None, db: str) -> None:
    """Progress of study NAME (every study when NAME is left out)."""
    from rich.table import Table

    store = _store(db)
    names = [name] if name else [s["name"] for s in store.studies()]
    if not names:
        click.echo("no studies in this database")
        return
    con = _console()
    for n in names:
        p = store.progress(n)
        con.print(f"[bold]{p['study']}[/bold] ({p['type']}, k = {p['k']}): {p['complete']}/{p['tasks']} pages "
                  f"complete, {p['responses']}/{p['needed']} responses, {p['leased']} claimed now")
        t = Table(header_style="bold")
        for col in ("annotator", "condition", "pages done", "mean s/page", "started"):
            t.add_column(col)
        for a in p["annotators"]:
            t.add_row(a["name"], a["condition"], str(a["done"]),
                      "" if a["mean_seconds"] is None else f"{a['mean_seconds']:.1f}",
                      "yes" if a["guidelines_at"] else "no")
        con.print(t)


@study.command("export")
@click.argument("name")
@_db_option
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="Folder for NAME_judgements.csv/.jsonl, NAME_matrix_<criterion>.csv, NAME_design.json, "
                   "NAME_events.jsonl.")
def export_cmd(name: str, db: str, out_dir: Path) -> None:
    """Export study NAME: tidy judgements, unit x rater matrices, design JSON and the event log."""
    from creval.human.export import write_exports

    for p in write_exports(_store(db), name, out_dir):
        click.echo(str(p))


@study.command("results")
@click.argument("name")
@_db_option
@click.option("--json", "json_path", type=click.Path(path_type=Path), help="Also write the results as JSON.")
def results_cmd(name: str, db: str, json_path: Path | None) -> None:
    """Scores per system and agreement statistics of study NAME."""
    import json

    from rich.table import Table

    from creval.human.summary import study_results

    res = study_results(_store(db), name)
    con = _console()
    con.print(f"[bold]{name}[/bold]: {res['responses']} responses, {res['judgements']} judgements, "
              f"{res['raters']} annotators")
    for note in res["notes"]:
        con.print(f"[yellow]{note}[/yellow]")
    for table in res["tables"]:
        t = Table(title=table["title"], header_style="bold")
        for c in table["columns"]:
            t.add_column(str(c))
        for row in table["rows"]:
            t.add_row(*[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row])
        con.print(t)
    if json_path:
        from creval.corpus.io import atomic_write

        with atomic_write(json_path) as fh:
            json.dump(res, fh, indent=2, default=str)


@main.command("serve")
@_db_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=1, show_default=True, type=int, help="uvicorn worker processes.")
@click.option("--secure-cookies", is_flag=True, help="Mark cookies Secure (behind HTTPS).")
def serve_cmd(db: str, host: str, port: int, workers: int, secure_cookies: bool) -> None:
    """Start the study web app (annotator pages, admin pages, exports) for every study in the database."""
    import os

    import uvicorn

    from creval.human.web.app import create_app

    _store(db).close()  # migrate and fail early with a clear message
    click.echo(f"creval studies on http://{host}:{port}/ (database {db})")
    if workers > 1:
        os.environ["CREVAL_DB"] = db
        uvicorn.run("creval.human.web.app:app_from_env", factory=True, host=host, port=port, workers=workers,
                    log_level="warning")
    else:
        uvicorn.run(create_app(db, secure_cookies=secure_cookies), host=host, port=port, log_level="warning")
