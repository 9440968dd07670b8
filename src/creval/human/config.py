"""The study file: one YAML document validated with pydantic.

Example (every field but ``name``, ``type`` and ``items`` has a default)::

    name: lyrics-fluency            # slug: letters, digits, '-', '_' (unique in the database)
    title: Are these lines fluent?  # shown to annotators
    type: fluency_coherence         # fluency_coherence | style_matching | challenge_response |
                                    # side_by_side | post_editing
    items: items.jsonl              # JSONL items file, relative to this study file (formats: creval.human.designs)
    k: 2                            # annotations per item (page)
    annotators: 4                   # how many invite links to make, or a list of names
    lease_minutes: 30               # a claimed item returns to the pool when not submitted within this time
    seed: 13                        # page order, candidate positions and system order are drawn from it
    guidelines:
      text: |                       # shown before the first item and linked from every page
        Rate each line ...
      examples:                     # optional worked examples shown with the guidelines
        - {text: "yo I'm the best", label: good, note: "a valid utterance"}
      examples_condition: all       # all | none | split (half the annotators see no examples)
    her:                            # post_editing only
      normalise: wer                # wer | levenshtein
      tokenizer: word               # word | char | whitespace | auto

Every problem is reported as one :class:`creval.errors.InputError` naming the file, the line of the offending
key when it can be found, the field path and the reason.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from creval.errors import InputError

STUDY_TYPES = ("fluency_coherence", "style_matching", "challenge_response", "side_by_side", "post_editing")

DEFAULT_K = {
    "fluency_coherence": 2,  # Potash et al.: two annotators per line
    "style_matching": 2,
    "challenge_response": 2,
    "side_by_side": 3,
    "post_editing": 1,
}


class Example(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1)
    label: str | None = None
    note: str | None = None


class Guidelines(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(default="", description="Instructions shown before the first item.")
    examples: list[Example] = Field(default_factory=list)
    examples_condition: Literal["all", "none", "split"] = "all"


class HerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    normalise: Literal["wer", "levenshtein"] = "wer"
    tokenizer: Literal["word", "char", "whitespace", "auto"] = "word"


class StudyConfig(BaseModel):
    """A validated study file (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")
    name: str
    title: str | None = None
    type: Literal[
        "fluency_coherence", "style_matching", "challenge_response", "side_by_side", "post_editing"
    ]
    items: str
    k: Annotated[int, Field(ge=1, le=100)] | None = None
    annotators: Annotated[int, Field(ge=1, le=10000)] | list[str] = 2
    lease_minutes: Annotated[float, Field(gt=0, le=7 * 24 * 60)] = 30.0
    seed: int = 0
    guidelines: Guidelines = Field(default_factory=Guidelines)
    her: HerSettings = Field(default_factory=HerSettings)

    @field_validator("name")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,62}", v):
            raise ValueError("must be 1-63 letters, digits, '-' or '_' (it is used in URLs and file names)")
        return v

    @field_validator("annotators")
    @classmethod
    def _names(cls, v: int | list[str]) -> int | list[str]:
        if isinstance(v, list):
            if not v:
                raise ValueError("must name at least one annotator")
            for n in v:
                if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}", n):
                    raise ValueError(f"annotator name {n!r}: use letters, digits, '.', '-' or '_'")
            if len(set(v)) != len(v):
                raise ValueError("annotator names must be unique")
        return v

    @property
    def k_effective(self) -> int:
        return self.k if self.k is not None else DEFAULT_K[self.type]

    @property
    def annotator_names(self) -> list[str]:
        if isinstance(self.annotators, list):
            return list(self.annotators)
        width = len(str(self.annotators))
        return [f"a{i + 1:0{width}d}" for i in range(self.annotators)]


def _key_lines(text: str) -> dict[tuple, int]:
    """Map each key path of a YAML mapping (tuples of keys / list indexes) to its 1-based line."""
    import yaml

    out: dict[tuple, int] = {}
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return out

    def walk(node, path):
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                p = path + (k.value,)
                out[p] = k.start_mark.line + 1
                walk(v, p)
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                p = path + (i,)
                out[p] = v.start_mark.line + 1
                walk(v, p)

    if root is not None:
        walk(root, ())
    return out


def parse_study(data: Any, file: str | Path | None = None, text: str | None = None) -> StudyConfig:
    """Validate a parsed study mapping; raise InputError naming the field and the reason."""
    if not isinstance(data, dict):
        raise InputError("a study file must be a YAML mapping (name: ..., type: ..., items: ...)", file)
    try:
        return StudyConfig.model_validate(data)
    except ValidationError as exc:
        lines = _key_lines(text) if text else {}
        problems = []
        first_line = None
        for err in exc.errors():
            loc = tuple(x for x in err["loc"] if not (isinstance(x, str) and ("[" in x or x.startswith("function"))))
            # pydantic adds union branch names (e.g. 'int', 'list[str]') to the location: drop them
            loc = tuple(x for x in loc if x not in ("int", "list[str]", "constrained-int", "literal"))
            field = ".".join(str(x) for x in loc) or "(file)"
            msg = err["msg"]
            if err["type"] == "extra_forbidden":
                msg = "unknown field (check the spelling; see the study file format in the README)"
            elif err["type"] == "missing":
                msg = "required field is missing"
            elif err["type"] == "literal_error":
                msg = f"{msg}, got {err.get('input')!r}"
            text_problem = f"field '{field}': {msg}"
            if text_problem not in problems:
                problems.append(text_problem)
            if first_line is None:
                for cut in range(len(loc), 0, -1):
                    if loc[:cut] in lines:
                        first_line = lines[loc[:cut]]
                        break
        raise InputError("; ".join(problems), file, first_line) from None


def load_study(path: str | Path) -> StudyConfig:
    """Read and validate a study YAML file."""
    import yaml

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("study file not found", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the study file: {exc}", path) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"not valid YAML: {getattr(exc, 'problem', exc)}", path,
                         mark.line + 1 if mark else None) from None
    return parse_study(data, path, text)
