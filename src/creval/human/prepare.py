"""From corpus and generations to study items: the preparation the papers did by hand.

Each builder returns ``(items, messages)``: the rows of a study's items file (the formats of
:mod:`creval.human.designs`, validated with :func:`creval.human.designs.validate_items` before they are
returned) and human-readable messages saying what was left out or done differently, and why.

- :func:`fluency_items` — generated verses for line fluency/coherence (Potash et al.), optionally a sample per
  (system, artist, checkpoint) group and authentic control verses (``system="human"``);
- :func:`style_matching_items` — evaluated verses (generated, plus optional authentic controls) and the pool of
  authentic candidate verses; the web app draws the four candidates of each page (artist rotation: with 13
  artists each verse meets the 12 others in 4 triples; fewer artists give a smaller rotation);
- :func:`challenge_response_items` — each system's response to a challenge line (generations with ``input``);
- :func:`side_by_side_items` — the outputs of all systems for one input on one page (Wu et al.);
- :func:`post_editing_items` — outputs to post-edit for HER, with the prompt as ``source``.

:func:`challenge_response_pairs` builds (challenge, response) pairs from a corpus by rhyme-scheme detection
(Addanki & Wu 2013), and :func:`sample_challenges` draws a test set of challenges for systems to answer.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from creval.corpus.model import Corpus, Output, Verse
from creval.errors import InputError

STUDY_TYPES = ("fluency_coherence", "style_matching", "challenge_response", "side_by_side", "post_editing")
_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg"}
MIN_STYLE_VERSES = 4
FULL_ROTATION_ARTISTS = 13


def _validated(study_type: str, rows: list[dict]) -> list[dict]:
    from creval.human.designs import validate_items

    validate_items(study_type, [dict(r) for r in rows])
    return rows


def _group_sample(outputs: Sequence[Output], per_group: int | None, seed: int) -> list[Output]:
    if per_group is None:
        return list(outputs)
    if per_group < 1:
        raise InputError("--per-group must be at least 1")
    rng = random.Random(seed)
    groups: dict[tuple, list[Output]] = {}
    for out in outputs:
        groups.setdefault((out.system, out.artist, out.checkpoint), []).append(out)
    chosen: list[Output] = []
    for key in sorted(groups, key=lambda k: tuple("" if x is None else str(x) for x in k)):
        members = groups[key]
        chosen.extend(members if len(members) <= per_group else rng.sample(members, per_group))
    return chosen


def _control_verses(corpus: Corpus | None, per_artist: int, seed: int) -> list[Verse]:
    if not per_artist:
        return []
    if corpus is None:
        raise InputError("authentic control verses need a corpus (--corpus)")
    rng = random.Random(seed + 7)
    chosen: list[Verse] = []
    for _artist, verses in sorted(corpus.by_artist().items()):
        chosen.extend(rng.sample(verses, min(per_artist, len(verses))))
    return chosen


def _vid(verse: Verse, index: int) -> str:
    return f"human-{'-'.join(verse.artist.lower().split())}-{index}"


def fluency_items(
    outputs: Sequence[Output], corpus: Corpus | None = None, *, per_group: int | None = None, controls: int = 0,
    seed: int = 0,
) -> tuple[list[dict], list[str]]:
    """Items of a ``fluency_coherence`` study: one per generated verse (non-empty), plus ``controls``
    authentic verses per artist from the corpus, rated the same way (``system="human"``)."""
    messages: list[str] = []
    rows: list[dict] = []
    for out in _group_sample(outputs, per_group, seed):
        if not out.lines:
            messages.append(f"output {out.id!r} ({out.system}) is empty: left out")
            continue
        row = {"id": out.id, "system": out.system, "lines": out.lines}
        if out.artist:
            row["artist"] = out.artist
        if out.input_id:
            row["input_id"] = out.input_id
        rows.append(row)
    for i, verse in enumerate(_control_verses(corpus, controls, seed)):
        rows.append({"id": _vid(verse, i), "system": "human", "lines": list(verse.lines), "artist": verse.artist})
    if not rows:
        raise InputError("no non-empty outputs to rate")
    return _validated("fluency_coherence", rows), messages


def style_matching_items(
    corpus: Corpus, outputs: Sequence[Output], *, per_group: int | None = None, controls: int = 0,
    candidates_per_artist: int = 8, seed: int = 0,
) -> tuple[list[dict], list[str]]:
    """Items of a ``style_matching`` study (Potash et al.).

    Evaluated verses: generated outputs with an ``artist`` (the target style), optionally sampled per group,
    plus ``controls`` authentic verses per artist. Candidates: up to ``candidates_per_artist`` authentic verses
    of every artist (distinct from that artist's control verses, so a control never meets itself).

    An artist needs at least 4 verses in the corpus (one true candidate per page of the full rotation); an
    artist with fewer is left out, as a target and as a candidate, with a message. With fewer than 13 artists
    the rotation is smaller: each evaluated verse gets ceil((A - 1) / 3) pages for A artists (the last triple
    filled up with artists drawn again), and a message says so. Fewer than 4 usable artists: nothing can be
    built (a page shows four different artists).
    """
    rng = random.Random(seed)
    messages: list[str] = []
    by_artist = corpus.by_artist()
    usable = {a: v for a, v in by_artist.items() if len(v) >= MIN_STYLE_VERSES}
    for artist, verses in sorted(by_artist.items()):
        if artist not in usable:
            messages.append(
                f"artist {artist!r} has {len(verses)} verse(s); style matching needs {MIN_STYLE_VERSES} "
                "(a different true candidate on each page): left out as target and candidate"
            )
    if len(usable) < 4:
        raise InputError(
            f"style matching needs at least 4 artists with {MIN_STYLE_VERSES}+ verses each (a page shows four "
            f"different artists); the corpus has {len(usable)}"
        )
    if len(usable) < FULL_ROTATION_ARTISTS:
        pages = math.ceil((len(usable) - 1) / 3)
        messages.append(
            f"{len(usable)} artists (the full rotation has {FULL_ROTATION_ARTISTS}): each evaluated verse gets "
            f"{pages} page(s) meeting the {len(usable) - 1} other artists"
            + ("; the last triple is filled up with artists drawn again" if (len(usable) - 1) % 3 else "")
        )
    rows: list[dict] = []
    for out in _group_sample(outputs, per_group, seed):
        if not out.artist:
            messages.append(f"output {out.id!r} has no 'artist' (target style): left out")
            continue
        if out.artist not in usable:
            messages.append(f"output {out.id!r}: artist {out.artist!r} is not usable (see above): left out")
            continue
        if not out.text.strip():
            messages.append(f"output {out.id!r} is empty: left out")
            continue
        rows.append({"id": out.id, "role": "evaluated", "artist": out.artist, "text": out.text,
                     "system": out.system})
    control_ids: set[int] = set()
    for artist in sorted(usable):
        verses = usable[artist]
        order = list(range(len(verses)))
        rng.shuffle(order)
        n_controls = min(controls, len(verses) - MIN_STYLE_VERSES + 1) if controls else 0
        if controls and n_controls < controls:
            messages.append(f"artist {artist!r}: {n_controls} control verse(s) instead of {controls} (too few verses)")
        for k, idx in enumerate(order[:n_controls]):
            v = verses[idx]
            control_ids.add(id(v))
            rows.append({"id": _vid(v, k), "role": "evaluated", "artist": artist, "text": v.text, "system": "human"})
        pool = [verses[i] for i in order[n_controls:]][:max(candidates_per_artist, MIN_STYLE_VERSES)]
        for k, v in enumerate(pool):
            rows.append({"id": f"cand-{'-'.join(artist.lower().split())}-{k}", "role": "candidate", "artist": artist,
                         "text": v.text})
    if not any(r["role"] == "evaluated" for r in rows):
        raise InputError("no verse to evaluate: outputs need an 'artist' that is in the corpus")
    return _validated("style_matching", rows), messages


def challenge_response_items(outputs: Sequence[Output]) -> tuple[list[dict], list[str]]:
    """Items of a ``challenge_response`` study: each output's ``input`` is the challenge, its text the response
    (the first line when a system answered with several)."""
    rows: list[dict] = []
    messages: list[str] = []
    multi_line = 0
    for out in outputs:
        if not out.input or not out.input.strip():
            raise InputError(f"output {out.id!r} has no 'input' (the challenge line)", out.source or None,
                             out.line or None)
        response = out.lines[0] if out.lines else ""
        if not response:
            messages.append(f"output {out.id!r} has an empty response: left out")
            continue
        multi_line += len(out.lines) > 1
        row = {"id": out.id, "system": out.system, "challenge": out.input.strip(), "response": response}
        if out.input_id:
            row["input_id"] = out.input_id
        if out.artist:
            row["artist"] = out.artist
        rows.append(row)
    if multi_line:
        messages.append(f"{multi_line} output(s) have several lines: the first line is the response")
    if not rows:
        raise InputError("no responses to rate")
    return _validated("challenge_response", rows), messages


def _pick_one(candidates: list[Output]) -> Output:
    """One output of a system for an input: the one-best (``sample == "best"``) if there is one, else the lowest
    sample number, else the first."""
    best = [o for o in candidates if o.sample == "best"]
    if best:
        return best[0]

    def key(o: Output) -> tuple[int, float]:
        try:
            return (0, float(o.sample)) if o.sample is not None else (1, 0.0)
        except ValueError:
            return (1, 0.0)

    return min(candidates, key=key)


def side_by_side_items(outputs: Sequence[Output]) -> tuple[list[dict], list[str]]:
    """Items of a ``side_by_side`` study (Wu et al.): one page per ``input_id`` with one output of every system
    (see :func:`_pick_one`). An input that not every system answered is left out (pages must show the same
    number of outputs), with a message. The ``input`` becomes the page's ``image`` when it is an image path,
    its ``context`` otherwise."""
    messages: list[str] = []
    systems = sorted({o.system for o in outputs})
    if len(systems) < 2:
        raise InputError(f"side-by-side rating needs outputs of at least two systems, found {len(systems)}")
    groups: dict[str, dict[str, list[Output]]] = {}
    for out in outputs:
        if not out.input_id:
            raise InputError(f"output {out.id!r} has no 'input_id' (outputs for one input share a page)",
                             out.source or None, out.line or None)
        groups.setdefault(out.input_id, {}).setdefault(out.system, []).append(out)
    rows: list[dict] = []
    for input_id in sorted(groups):
        by_system = groups[input_id]
        missing = [s for s in systems if s not in by_system]
        if missing:
            messages.append(f"input {input_id!r}: no output from {', '.join(missing)}: left out")
            continue
        chosen = [_pick_one(by_system[s]) for s in systems]
        dropped = sum(len(by_system[s]) for s in systems) - len(chosen)
        if dropped:
            messages.append(f"input {input_id!r}: {dropped} further sample(s) not shown (one output per system)")
        row: dict = {"id": input_id, "input_id": input_id,
                     "outputs": [{"system": o.system, "text": o.text, "id": o.id} for o in chosen]}
        source = next((o.input for o in chosen if o.input), None)
        if source and PurePath(source).suffix.lower() in _IMAGE_SUFFIXES:
            row["image"] = source
        else:
            row["context"] = source or f"input {input_id}"
        rows.append(row)
    if not rows:
        raise InputError("no input was answered by every system")
    return _validated("side_by_side", rows), messages


def post_editing_items(outputs: Sequence[Output]) -> tuple[list[dict], list[str]]:
    """Items of a ``post_editing`` study: each text output, with its ``input`` as the ``source``."""
    rows: list[dict] = []
    messages: list[str] = []
    for out in outputs:
        if not out.text.strip():
            messages.append(f"output {out.id!r} has no text: left out"
                            + (" (music outputs: see `creval music`)" if out.music else ""))
            continue
        row = {"id": out.id, "system": out.system, "text": out.text}
        if out.input:
            row["source"] = out.input
        if out.artist:
            row["artist"] = out.artist
        if out.input_id:
            row["input_id"] = out.input_id
        rows.append(row)
    if not rows:
        raise InputError("no outputs with text to post-edit")
    return _validated("post_editing", rows), messages


def build_items(
    study_type: str, outputs: Sequence[Output], corpus: Corpus | None = None, *, per_group: int | None = None,
    controls: int = 0, seed: int = 0,
) -> tuple[list[dict], list[str]]:
    """Dispatch to the builder of ``study_type`` (see module docstring)."""
    if study_type == "fluency_coherence":
        return fluency_items(outputs, corpus, per_group=per_group, controls=controls, seed=seed)
    if study_type == "style_matching":
        if corpus is None:
            raise InputError("style matching needs the corpus of authentic verses (--corpus)")
        return style_matching_items(corpus, outputs, per_group=per_group, controls=controls, seed=seed)
    if study_type == "challenge_response":
        return challenge_response_items(_group_sample(outputs, per_group, seed))
    if study_type == "side_by_side":
        return side_by_side_items(outputs)
    if study_type == "post_editing":
        return post_editing_items(_group_sample(outputs, per_group, seed))
    raise InputError(f"unknown study type {study_type!r}; use one of {', '.join(STUDY_TYPES)}")


# ------------------------------------------------------------------------------------ challenge-response pairs
@dataclass(frozen=True)
class ChallengePair:
    """A challenge line and the line that answers it (they rhyme within one stanza)."""

    challenge: str
    response: str
    artist: str
    title: str
    source: str
    line: int
    scheme: str


def challenge_response_pairs(
    corpus: Corpus, *, both_directions: bool = True, adjacent_only: bool = False, verify: bool = True,
    hmm: object | None = None,
) -> tuple[list[ChallengePair], list[str]]:
    """(challenge, response) pairs from a corpus, as Addanki & Wu (2013) built their data: the rhyme-scheme
    detector (:mod:`creval.rhyme.scheme`, trained unsupervised on the corpus's own end words) segments each
    verse into stanzas; every pair of lines that rhyme within a stanza gives a pair, in both directions unless
    ``both_directions=False`` (then earlier line → later line). ``adjacent_only`` keeps pairs of consecutive
    lines (couplets). With ``verify`` (default) a pair is kept only when the end words also pass
    :func:`creval.rhyme.check_rhyme` (any rhyme type but consonance): the scheme HMM labels whole stanzas, and
    a stanza-level scheme can pair two lines that do not rhyme in modern pronunciation. Returns the pairs and
    messages (verses without rhyming lines, pairs rejected by the check)."""
    from creval.rhyme import check_rhyme
    from creval.rhyme.scheme import fit_corpus_detector

    detector = hmm if hmm is not None else fit_corpus_detector(corpus)
    pairs: list[ChallengePair] = []
    messages: list[str] = []
    no_rhyme = 0
    rejected = 0
    for verse in corpus:
        if len(verse.lines) < 2:
            continue
        found = 0
        for stanza in detector.detect(list(verse.lines)):
            for i, j in stanza.pairs:
                if adjacent_only and j - i != 1:
                    continue
                a, b = verse.lines[i], verse.lines[j]
                if verify and not check_rhyme(a, b):
                    rejected += 1
                    continue
                found += 1
                line_no = verse.line + i if verse.line else 0
                common = dict(artist=verse.artist, title=verse.title, source=verse.source, line=line_no,
                              scheme=stanza.scheme)
                pairs.append(ChallengePair(a, b, **common))
                if both_directions:
                    pairs.append(ChallengePair(b, a, **common))
        no_rhyme += found == 0
    if rejected:
        messages.append(f"{rejected} line pair(s) of the detected schemes failed the phonetic rhyme check: left out")
    if no_rhyme:
        messages.append(f"{no_rhyme} verse(s) have no rhyming line pair: no pairs from them")
    if not pairs:
        raise InputError("no rhyming line pairs found in the corpus: nothing to build challenges from")
    return pairs, messages


def sample_challenges(pairs: Sequence[ChallengePair], size: int, *, seed: int = 0) -> list[ChallengePair]:
    """A test set of ``size`` distinct challenge lines (seeded), each with one reference response."""
    if size < 1:
        raise InputError("the test set size must be at least 1")
    seen: dict[str, ChallengePair] = {}
    for pair in pairs:
        seen.setdefault(pair.challenge.strip().lower(), pair)
    unique = list(seen.values())
    if size > len(unique):
        raise InputError(f"asked for {size} challenges but the corpus gives only {len(unique)} distinct ones")
    rng = random.Random(seed)
    return rng.sample(unique, size)


def pairs_rows(pairs: Iterable[ChallengePair]) -> list[dict]:
    return [
        {"challenge": p.challenge, "response": p.response, "artist": p.artist, "title": p.title,
         "source": p.source, "line": p.line, "scheme": p.scheme}
        for p in pairs
    ]
