"""Registered music measures for ``creval evaluate``: outputs whose JSONL rows carry a ``music`` path.

* ``music-features``: MGEval's scalar features of each generated piece (pitch count, note count, pitch range,
  average pitch interval, average inter-onset interval), one value per output.
* ``music-mgeval``: each system's generated set against a reference corpus folder of MIDI/MusicXML
  (``--param music-mgeval.corpus=DIR``): KL divergence and overlapping area between the reference's intra-set
  distance density and the inter-set density, per feature (set-level rows ``mgeval_kl_<feature>`` and
  ``mgeval_oa_<feature>``), plus the densities and tables for the report.
* ``music-her``: HER of each generated piece against its post-edited version (a ``music_edited`` path in the
  row), overall per output and per bar in the report, and the Mongeau–Sankoff distance between the two
  (``music_ms_distance``: melodies with rests, k = 0.348).

A ``music`` path that is not absolute is read relative to the generations file's folder (falling back to the
current folder). Text outputs without ``music`` are left alone: these measures report nothing for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from creval.corpus.model import Output, outputs_by_system
from creval.errors import InputError
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.music.features import DEFAULT_FEATURES, FEATURES, extract_features, feature_table, set_statistics
from creval.music.io import Piece, music_files, read_piece

_CACHE: dict[tuple[str, float], Piece] = {}
_REFERENCE_CACHE: dict[tuple, dict[str, np.ndarray]] = {}


def resolve_music_path(output: Output, value: str | None = None) -> Path:
    """The file an output's ``music`` (or another path field) names."""
    raw = value if value is not None else output.music
    if raw is None:
        raise InputError(f"output {output.id!r} has no music path", output.source or None, output.line or None)
    path = Path(raw).expanduser()
    if not path.is_absolute() and output.source:
        candidate = Path(output.source).parent / path
        if candidate.exists() or not path.exists():
            path = candidate
    if not path.exists():
        raise InputError(f"output {output.id!r}: music file {raw!r} not found", output.source or None,
                         output.line or None)
    return path


def load_piece(path: str | Path) -> Piece:
    """Read a music file once per process (cached by path and modification time)."""
    path = Path(path)
    key = (str(path.resolve()), path.stat().st_mtime)
    piece = _CACHE.get(key)
    if piece is None:
        if len(_CACHE) > 5000:
            _CACHE.clear()
        piece = read_piece(path)
        _CACHE[key] = piece
    return piece


def _music_outputs(outputs: Sequence[Output]) -> list[int]:
    return [i for i, o in enumerate(outputs) if o.music]


SCALAR_NAMES = {
    "total_used_pitch": "music_pitch_count",
    "total_used_note": "music_note_count",
    "pitch_range": "music_pitch_range",
    "avg_pitch_shift": "music_pitch_interval",
    "avg_IOI": "music_ioi",
}


@register_measure
class MusicFeaturesMeasure(Measure):
    """MGEval's scalar features per generated piece (Yang & Lerch 2020, Sec. 3.1)."""

    name = "music-features"
    description = ("MGEval scalar features of each output's music file: pitch count, note count, pitch range, "
                   "average pitch interval, average IOI (s)")

    def __init__(self, track: int | str | None = None) -> None:
        super().__init__(track=track if track is not None else "all")
        self._track = track

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        idx = _music_outputs(outputs)
        if not idx:
            return MeasureResult(notes=[])
        values = {name: np.full(len(outputs), np.nan) for name in SCALAR_NAMES.values()}
        for i in idx:
            feats = extract_features(load_piece(resolve_music_path(outputs[i])), list(SCALAR_NAMES),
                                     track=self._track)
            for feat, reported in SCALAR_NAMES.items():
                values[reported][i] = float(feats[feat])
        notes = []
        if len(idx) < len(outputs):
            notes.append(f"{len(outputs) - len(idx)} output(s) have no music file: NaN")
        sigs = {r: Signature(r, params={"track": self.params["track"]}) for r in values}
        return MeasureResult(values=values, signatures=sigs, notes=notes)


@register_measure
class MGEvalMeasure(Measure):
    """Relative evaluation of each system's pieces against a reference corpus (Yang & Lerch 2020, Sec. 3.2)."""

    name = "music-mgeval"
    description = ("MGEval relative evaluation per system against a corpus folder of MIDI (param corpus=DIR): "
                   "KL divergence and overlapping area of intra- vs inter-set distance densities per feature")

    def __init__(self, corpus: str | None = None, mode: str = "compat", num_bars: int = 8,
                 features: str | Sequence[str] | None = None, pause_event: bool = False,
                 track: int | str | None = None) -> None:
        from creval.music.mgeval import MODES

        if mode not in MODES:
            raise InputError(f"music-mgeval: unknown mode {mode!r}; use one of {', '.join(MODES)}")
        if isinstance(features, str):
            features = [f.strip() for f in features.split(",") if f.strip()]
        feats = list(features or DEFAULT_FEATURES)
        unknown = [f for f in feats if f not in FEATURES]
        if unknown:
            raise InputError(f"music-mgeval: unknown feature(s) {', '.join(unknown)}; known: {', '.join(FEATURES)}")
        if int(num_bars) < 1:
            raise InputError("music-mgeval: num_bars must be at least 1")
        super().__init__(mode=mode, num_bars=int(num_bars), pause_event=bool(pause_event),
                         reference=Path(corpus).name if corpus else None)
        self.corpus = corpus
        self.features = feats
        self.track = track
        self._reference: dict[str, np.ndarray] | None = None
        self._reference_files: list[Path] = []

    def _extract(self, piece: Piece) -> dict[str, np.ndarray]:
        return extract_features(piece, self.features, track=self.track, num_bars=self.params["num_bars"],
                                pause_event=self.params["pause_event"])

    def fit_folder(self, folder: str | Path, *, progress: bool = False) -> MGEvalMeasure:
        """Read and featurise the reference corpus folder once."""
        from creval.music.io import read_pieces

        files = music_files(folder)
        key = (str(Path(folder).resolve()), tuple((str(f), f.stat().st_mtime) for f in files),
               tuple(self.features), self.params["num_bars"], self.params["pause_event"], str(self.track))
        cached = _REFERENCE_CACHE.get(key)
        if cached is None:
            pieces = read_pieces(files, progress=progress, description="reading the reference corpus")
            cached = feature_table([self._extract(p) for p in pieces], self.features)
            _REFERENCE_CACHE.clear()  # keep one corpus in memory
            _REFERENCE_CACHE[key] = cached
        self._reference = cached
        self._reference_files = files
        return self

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        from creval.music.mgeval import compare_sets

        idx = _music_outputs(outputs)
        if not idx:
            return MeasureResult()
        if self._reference is None:
            if not self.corpus:
                return MeasureResult(notes=[
                    "no reference corpus: set --param music-mgeval.corpus=DIR (a folder of MIDI/MusicXML files) "
                    "to compare the generated music with it"])
            self.fit_folder(self.corpus)
        assert self._reference is not None
        rows: list[dict[str, Any]] = []
        signatures: dict[str, Signature] = {}
        systems: dict[str, Any] = {}
        notes: list[str] = []
        music_outputs = [outputs[i] for i in idx]
        for system, outs in outputs_by_system(music_outputs).items():
            generated = feature_table([self._extract(load_piece(resolve_music_path(o))) for o in outs],
                                      self.features)
            comparison = compare_sets(generated, self._reference, features=self.features, mode=self.params["mode"])
            notes.extend(f"{system}: {n}" for n in comparison.notes)
            for fc in comparison.features:
                for stat, value in (("kl", fc.kl), ("oa", fc.oa)):
                    name = f"mgeval_{stat}_{fc.feature}"
                    rows.append({"system": system, "output_id": None, "input_id": None, "sample": None,
                                 "checkpoint": None, "artist": None, "measure": name, "value": value})
                    signatures[name] = Signature(name, params=self.params)
            systems[system] = {
                "table": comparison.table().to_dict("records"),
                "densities": {fc.feature: _plain_densities(fc.densities()) for fc in comparison.features},
                "n_generated": comparison.n_generated,
                "n_reference": comparison.n_reference,
                "absolute": _absolute(generated),
            }
        artifacts = {"mode": self.params["mode"], "corpus": str(self.corpus or ""),
                     "n_reference": len(self._reference_files), "num_bars": self.params["num_bars"],
                     "features": self.features, "systems": systems, "reference_absolute": _absolute(self._reference)}
        return MeasureResult(rows=rows, signatures=signatures, artifacts=artifacts, notes=notes)


def _plain_densities(d: dict[str, np.ndarray] | None) -> dict[str, list[float]] | None:
    return None if d is None else {k: np.asarray(v, dtype=float).tolist() for k, v in d.items()}


def _absolute(table: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
    """Mean and std of the scalar features (and of the per-bar counts, pooled over bars)."""
    stats = set_statistics({k: v for k, v in table.items() if FEATURES[k].shape == ()})
    out = {}
    for name, (mean, std) in stats.items():
        if FEATURES[name].per_bar:
            flat = table[name].ravel()
            out[name] = (float(np.nanmean(flat)), float(np.nanstd(flat)))
        else:
            out[name] = (float(mean), float(std))
    return out


@register_measure
class MusicHerMeasure(Measure):
    """HER of generated music against its post-edited version (Kalonaris & Aljanaki)."""

    name = "music-her"
    description = ("HER of each output's music file against its post-edited version (row field music_edited), "
                   "over note tokens, per bar in the report; and their Mongeau-Sankoff distance")

    def __init__(self, tokens: str = "pitch+duration", field: str = "music_edited") -> None:
        from creval.music.edit import note_tokens

        class _Probe:
            pitch = np.zeros(0, dtype=np.int64)
            duration = np.zeros(0)
            beat = np.zeros(0)

        note_tokens(_Probe, tokens)  # validates the token kind
        super().__init__(tokens=tokens)
        self.field = field

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        from creval.music.edit import K_DEFAULT, melody_sequence, mongeau_sankoff_batch
        from creval.music.her import music_her

        idx = [i for i, o in enumerate(outputs) if o.music and o.extra.get(self.field)]
        if not idx:
            return MeasureResult()
        values = np.full(len(outputs), np.nan)
        ms_values = np.full(len(outputs), np.nan)
        pairs = []
        per_piece = []
        for i in idx:
            out = outputs[i]
            edited = out.extra[self.field]
            if not isinstance(edited, str):
                raise InputError(f"output {out.id!r}: field {self.field!r} must be a path string",
                                 out.source or None, out.line or None)
            gen_piece = load_piece(resolve_music_path(out))
            edit_piece = load_piece(resolve_music_path(out, edited))
            result = music_her(gen_piece, edit_piece, tokens=self.params["tokens"])
            values[i] = result.her
            pairs.append((melody_sequence(gen_piece.notes()), melody_sequence(edit_piece.notes())))
            per_piece.append({"output_id": out.id, "system": out.system, "input_id": out.input_id or out.id,
                              "her": result.her, "S": result.counts.substitutions, "D": result.counts.deletions,
                              "I": result.counts.insertions, "C": result.counts.correct,
                              "per_bar": [float(x) for x in result.her_per_bar]})
        ms_values[idx] = mongeau_sankoff_batch(pairs)
        for row, value in zip(per_piece, ms_values[idx]):
            row["mongeau_sankoff"] = float(value)
        notes = []
        if len(idx) < len(outputs):
            notes.append(f"{len(outputs) - len(idx)} output(s) have no music and {self.field}: no HER")
        ms_sig = Signature("music_ms_distance", params={"k": K_DEFAULT, "max_fragment": 4, "rests": True,
                                                        "interval_by_duration": False})
        return MeasureResult(values={"music_her": values, "music_ms_distance": ms_values},
                             signatures={"music_her": Signature("music_her", params=self.params),
                                         "music_ms_distance": ms_sig},
                             artifacts={"pieces": per_piece, "tokens": self.params["tokens"]}, notes=notes)
