"""A small example study of each type (``creval study example``), written from scratch for the README walk-through.

The lines are invented for this example (no third-party lyrics); the "systems" are made-up names.
"""

from __future__ import annotations

import json
from pathlib import Path

from creval.human.config import STUDY_TYPES

_VERSES = [
    "the morning bus is late again\nI count the puddles in the rain\nmy sneakers soaked, my pockets thin\nstill I smile and I step in",
    "the city hums a heavy tune\nI chase the echo of the moon\nthe corner store is closing soon\nI spend my last on a balloon",
    "green the river green the hill\nthe mill wheel turning turning still\nI wrote your name on window frost\nand watched it fade and counted cost",
    "numbers on the wall they spin\nwhere the blue begins to thin\ncarpet of the quiet sky\nbanana telephone goodbye",
]
_CHALLENGES = [
    ("I walk the line from nine to five", "and every night I come alive"),
    ("the rent is due the fridge is bare", "I comb the couch for change to spare"),
    ("they said I'd never make a sound", "the pencil dances on the ground"),
    ("the stars are out above the park", "I hold my breath against the dark"),
]

GUIDELINES = {
    "fluency_coherence": "For each line, say whether it is a valid, natural utterance (fluency). For each line after "
                         "the first, say whether it could follow the line before it in a verse (coherence).",
    "style_matching": "Read the verse at the top, then pick the one of the four candidate verses whose style "
                      "(vocabulary, rhythm, themes) is closest to it.",
    "challenge_response": "Rate the response to the challenge line.\n\nFluency: good = a natural sentence; "
                          "acceptable = understandable with small errors; bad = hard to understand.\n\nRhyming: good "
                          "= the response's last word rhymes with the challenge's; acceptable = a near or slant "
                          "rhyme; bad = no rhyme.",
    "side_by_side": "Rate each poem from 1 to 5. Give 3 when every line is understandable and related to the "
                    "picture, 4 if the poem is also coherent, 5 if it is also moving. Subtract one or two points "
                    "for grammatical errors or repetitions.",
    "post_editing": "Edit the generated text until it is acceptable: fix what must be fixed and change as little "
                    "as possible. Your edits are saved as a draft while you type.",
}


def example_items(study_type: str) -> list[dict]:
    if study_type == "fluency_coherence":
        return [{"id": f"v{i + 1}", "system": ["lstm", "ngram"][i % 2], "text": v} for i, v in enumerate(_VERSES)]
    if study_type == "challenge_response":
        rows = []
        for i, (c, r) in enumerate(_CHALLENGES):
            rows.append({"id": f"r{i + 1}a", "system": "transducer", "challenge": c, "response": r})
            rows.append({"id": f"r{i + 1}b", "system": "baseline", "challenge": c,
                         "response": " ".join(reversed(r.split()))})
        return rows
    if study_type == "side_by_side":
        return [{"id": f"p{i + 1}", "context": ctx,
                 "outputs": [{"system": "poet-a", "text": _VERSES[i % 4]},
                             {"system": "poet-b", "text": _VERSES[(i + 1) % 4]},
                             {"system": "poet-c", "text": _VERSES[(i + 2) % 4]}]}
                for i, ctx in enumerate(["a wet street at dawn", "a lit window at night", "a river by a mill",
                                         "an empty sky"])]
    if study_type == "post_editing":
        return [{"id": f"e{i + 1}", "system": ["lstm", "ngram"][i % 2], "text": v,
                 "source": "write four lines about a day in the city"} for i, v in enumerate(_VERSES)]
    if study_type == "style_matching":
        artists = ["Ada", "Bram", "Cleo", "Dov", "Eli"]
        rows: list[dict] = []
        for i, a in enumerate(artists):
            for j in range(2):
                rows.append({"id": f"c-{a}-{j}", "role": "candidate", "artist": a,
                             "text": _VERSES[(i + j) % 4].replace("the", ["a", "this", "that", "our", "my"][i])
                             + f"\n({a.lower()} verse {j + 1})"})
        for i, a in enumerate(artists[:2]):
            rows.append({"id": f"g{i + 1}", "role": "evaluated", "artist": a, "system": "lstm",
                         "text": _VERSES[(i + 2) % 4]})
        return rows
    raise ValueError(study_type)


def write_example(out_dir: str | Path, study_type: str = "challenge_response", name: str | None = None) -> Path:
    """Write ``study.yaml`` and ``items.jsonl`` of an example study into ``out_dir``; return the study file."""
    import yaml

    if study_type not in STUDY_TYPES:
        raise ValueError(study_type)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    items = out / "items.jsonl"
    items.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in example_items(study_type)),
                     encoding="utf-8")
    study = {
        "name": name or f"example-{study_type.replace('_', '-')}",
        "title": f"Example {study_type.replace('_', ' ')} study",
        "type": study_type, "items": "items.jsonl", "k": 2, "annotators": 3, "lease_minutes": 30, "seed": 1,
        "guidelines": {"text": GUIDELINES[study_type]},
    }
    if study_type == "challenge_response":
        study["guidelines"]["examples"] = [
            {"text": "the night is young / a song unsung", "label": "fluency good, rhyming good"},
            {"text": "the night is young / unsung song a", "label": "fluency bad", "note": "word salad"}]
        study["guidelines"]["examples_condition"] = "split"
    path = out / "study.yaml"
    path.write_text(yaml.safe_dump(study, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path
