"""``creval music features|compare|her``: symbolic-music evaluation from the command line."""

from __future__ import annotations

from pathlib import Path

import click

from creval.cli import main
from creval.errors import InputError


def _console():
    from rich.console import Console

    return Console()


@main.group()
def music() -> None:
    """Symbolic music: MGEval features, generated-vs-corpus comparison, HER of post-edits.

    Reads MIDI (.mid), MusicXML (.xml, .musicxml, .mxl), ABC (.abc) and Humdrum (.krn) files.
    """


@music.command("features")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--csv", "csv_path", type=click.Path(path_type=Path),
              help="Write one row per file (scalar features and the pitch class histogram) to this CSV.")
@click.option("--track", default=None, help="Track index or name (default: all pitched tracks merged).")
def features_cmd(paths: tuple[Path, ...], csv_path: Path | None, track: str | None) -> None:
    """MGEval features of music files or folders: a table per file, then mean ± std over the files.

    Example: creval music features generated/ --csv features.csv
    """
    import numpy as np
    import pandas as pd
    from rich.table import Table

    from creval.music.features import FEATURES, extract_features
    from creval.music.io import music_files, read_piece

    files = [f for p in paths for f in music_files(p)]
    track_arg: int | str | None = int(track) if track is not None and track.isdigit() else track
    names = ["total_used_pitch", "total_used_note", "pitch_range", "avg_pitch_shift", "avg_IOI"]
    rows = []
    from rich.progress import track as progress

    for f in progress(files, description="features", transient=True, disable=len(files) < 20):
        feats = extract_features(read_piece(f), [*names, "total_pitch_class_histogram"], track=track_arg)
        row = {"file": str(f), **{n: float(feats[n]) for n in names}}
        row.update({f"pch_{i}": float(v) for i, v in enumerate(feats["total_pitch_class_histogram"])})
        rows.append(row)
    frame = pd.DataFrame(rows)
    table = Table(title=f"{len(files)} file(s)", header_style="bold")
    table.add_column("file")
    for n in names:
        table.add_column(FEATURES[n].label, justify="right")
    for row in rows[:50]:
        table.add_row(Path(row["file"]).name, *[f"{row[n]:.3g}" for n in names])
    if len(rows) > 50:
        table.add_row(f"… {len(rows) - 50} more", *[""] * len(names))
    table.add_row("[bold]mean ± std[/]", *[f"{np.nanmean(frame[n]):.3g} ± {np.nanstd(frame[n]):.3g}"
                                          for n in names])
    _console().print(table)
    if csv_path is not None:
        from creval.corpus.io import atomic_write

        with atomic_write(csv_path) as handle:
            frame.to_csv(handle, index=False)
        _console().print(f"wrote {csv_path}")


@music.command("compare")
@click.argument("generated", type=click.Path(path_type=Path))
@click.argument("corpus", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="Output folder: results.csv, summary.csv, mgeval.csv, report.html.")
@click.option("--mode", type=click.Choice(["compat", "corrected"]), default="compat", show_default=True,
              help="compat: the MGEval toolbox's numerics; corrected: common grid over the full support.")
@click.option("--num-bars", default=8, show_default=True, help="Bars used by the per-bar features.")
@click.option("--system", "system", default=None, help="System name in the report (default: the folder name).")
@click.option("--pause-event", is_flag=True, help="Note-length features with rests (24 classes).")
def compare_cmd(generated: Path, corpus: Path, out_dir: Path, mode: str, num_bars: int, system: str | None,
                pause_event: bool) -> None:
    """Compare a folder of generated music with a corpus folder (MGEval) and write a report in one go.

    Sub-folders of GENERATED holding music files become separate systems; files directly inside GENERATED
    form one system named after the folder (or --system).

    Example: creval music compare samples/ training_midi/ --out music-report/
    """
    from creval.api import evaluate_full
    from creval.corpus.model import Output
    from creval.music.io import music_files
    from creval.music.measures import MGEvalMeasure

    files = music_files(generated)
    gen_root = generated if generated.is_dir() else generated.parent
    outputs = []
    for f in files:
        rel = f.relative_to(gen_root)
        sys_name = rel.parts[0] if len(rel.parts) > 1 else (system or gen_root.resolve().name)
        outputs.append(Output(id=str(rel), system=sys_name, text="", music=str(f.resolve())))
    params = {"mode": mode, "num_bars": num_bars, "pause_event": pause_event, "corpus": str(corpus)}
    # read and featurise the corpus once, with a progress bar; the pipeline's measure reuses it
    MGEvalMeasure(**params).fit_folder(corpus, progress=True)
    evaluation = evaluate_full(None, outputs, ["music-features", "music-mgeval"],
                               params={"music-mgeval": params}, out=None, progress=True)
    import pandas as pd

    from creval.api import write_evaluation
    from creval.corpus.io import atomic_directory

    art = evaluation.artifacts.get("music-mgeval", {})
    tables = [pd.DataFrame(data["table"]).assign(system=sys) for sys, data in art.get("systems", {}).items()]
    mgeval = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    with atomic_directory(out_dir) as tmp:
        write_evaluation(evaluation, tmp)
        mgeval.to_csv(tmp / "mgeval.csv", index=False)
    _print_mgeval(mgeval)
    _console().print(f"[bold green]report:[/] {out_dir / 'report.html'}")


def _print_mgeval(frame) -> None:
    from rich.table import Table

    if frame.empty:
        return
    table = Table(title="MGEval: KL(intra-reference ‖ inter) and overlapping area", header_style="bold")
    for col in ("system", "feature", "kl", "oa", "status"):
        table.add_column(col, justify="left" if col in ("system", "feature", "status") else "right")
    for r in frame.itertuples():
        table.add_row(str(r.system), str(r.feature), f"{r.kl:.4f}", f"{r.oa:.4f}", str(r.status))
    _console().print(table)


@music.command("her")
@click.argument("generated", type=click.Path(path_type=Path))
@click.argument("edited", type=click.Path(path_type=Path))
@click.option("--tokens", type=click.Choice(["pitch", "pitch+duration", "pitch+duration+beat"]),
              default="pitch+duration", show_default=True, help="What a note token holds.")
@click.option("--per-bar/--no-per-bar", default=True, show_default=True, help="Print HER per bar.")
def her_cmd(generated: Path, edited: Path, tokens: str, per_bar: bool) -> None:
    """HER of a generated piece against an annotator's edited version, overall and per bar.

    HER = (S + D + I) / (S + D + C) over note tokens, the edited version as reference; also prints the
    Mongeau–Sankoff (1990) distance between the two melodies.

    Example: creval music her sample.mid sample_edited.mid
    """
    from rich.table import Table

    from creval.music.edit import melody_sequence, mongeau_sankoff
    from creval.music.her import music_her
    from creval.music.io import read_piece

    gen_piece, edit_piece = read_piece(generated), read_piece(edited)
    result = music_her(gen_piece, edit_piece, tokens=tokens)
    c = result.counts
    _console().print(f"HER = {result.her:.4f}  (S={c.substitutions} D={c.deletions} I={c.insertions} "
                     f"C={c.correct}; tokens: {tokens})")
    ms = mongeau_sankoff(melody_sequence(gen_piece.notes()), melody_sequence(edit_piece.notes()))
    _console().print(f"Mongeau–Sankoff distance = {ms:.4f}  (k = 0.348, lengths in sixteenths, rests included)")
    if per_bar:
        table = Table(header_style="bold")
        for col in ("bar", "HER", "S", "D", "I", "C"):
            table.add_column(col, justify="right")
        for row in result.rows():
            her = "—" if row["her"] != row["her"] else f"{row['her']:.3f}"
            table.add_row(str(row["bar"] + 1), her, *(str(row[k]) for k in "SDIC"))
        _console().print(table)


@music.command("items")
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--out", "out_path", required=True, type=click.Path(path_type=Path),
              help="Post-editing items JSONL for `creval study` (kind: music, notes notation).")
@click.option("--system", "system", default=None,
              help="System name when SOURCE is a folder of music files (default: the folder name).")
def items_cmd(source: Path, out_path: Path, system: str | None) -> None:
    """Turn generated music into post-editing study items: each piece written in the notes notation
    (C4:1 D4:0.5 F#4+A4:2 r:1 | ...), which annotators edit in the web app with a piano-roll preview.

    SOURCE is a generations JSONL (rows with a music path) or a folder of music files.

    Example: creval music items samples/ --out post_edit_items.jsonl
    """
    import json

    from creval.corpus.io import atomic_write, read_generations
    from creval.music.io import music_files
    from creval.music.measures import load_piece, resolve_music_path
    from creval.music.notation import piece_to_notes

    rows = []
    if source.is_file() and source.suffix.lower() == ".jsonl":
        outputs = [o for o in read_generations(source) if o.music]
        if not outputs:
            raise InputError("no row of the generations file has a 'music' path", source)
        for o in outputs:
            row = {"id": o.id, "system": o.system, "kind": "music", "format": "notes",
                   "notation": piece_to_notes(load_piece(resolve_music_path(o)))}
            if o.input_id:
                row["input_id"] = o.input_id
            rows.append(row)
    else:
        root = source if source.is_dir() else source.parent
        name = system or root.resolve().name
        for f in music_files(source):
            rows.append({"id": str(f.relative_to(root)), "system": name, "kind": "music", "format": "notes",
                         "notation": piece_to_notes(load_piece(f))})
    with atomic_write(out_path) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    _console().print(f"wrote {len(rows)} post-editing item(s) to {out_path}")
