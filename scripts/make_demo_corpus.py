"""Build the bundled demo corpus (src/creval/data/demo/) from the Chicago Rhyming Poetry Corpus raw files.

Run by a developer, never at run time: `python scripts/make_demo_corpus.py ../shared/data/chicago-rhyme/english_raw`.
Annotation lines (AUTHOR, TITLE, RHYME, RHYME-POEM) are stripped; each poet becomes a folder, each poem a .txt
file with stanzas separated by blank lines. The poems are public domain; no annotation is shipped.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

POETS = ["coleridge", "constable", "crosland", "daniel", "fletcher", "griffin", "lodge", "milton", "more", "smith"]


def slug(text: str) -> str:
    text = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return text[:60] or "untitled"


def main(raw_dir: Path, out_dir: Path) -> None:
    from creval.corpus.io import read_chicago_raw

    if out_dir.exists():
        shutil.rmtree(out_dir)
    for poet in POETS:
        corpus = read_chicago_raw(raw_dir / f"{poet}.txt")
        poems: dict[str, list[str]] = {}
        order: list[str] = []
        for verse in corpus:
            key = verse.title or "untitled"
            if key not in poems:
                order.append(key)
                poems[key] = []
            poems[key].append(verse.text)
        artist = corpus.verses[0].artist
        folder = out_dir / artist
        folder.mkdir(parents=True)
        for i, title in enumerate(order, start=1):
            (folder / f"{i:03d}-{slug(title)}.txt").write_text(f"{chr(10) * 2}".join(poems[title]) + "\n", "utf-8")
    (out_dir / "SOURCE.md").write_text(
        "Demo corpus: ten public-domain English poets from the Chicago Rhyming Poetry Corpus\n"
        "(Sonderegger; Reddy & Knight 2011), github.com/sravanareddy/rhymedata. The poems are in the public\n"
        "domain. Annotation lines (AUTHOR/TITLE/RHYME) were removed: the rhyme annotations are not shipped.\n"
        f"Poets: {', '.join(POETS)}. One folder per poet, one file per poem, stanzas separated by blank lines.\n",
        "utf-8",
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(__file__).resolve().parents[1] / "src" / "creval" / "data" / "demo")
