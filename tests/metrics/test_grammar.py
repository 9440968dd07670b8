"""Grammar error rate with the offline Harper backend, and the LanguageTool backend over HTTP.

No LanguageTool distribution can be had on this machine (no download, and creval never downloads one), so the
LanguageTool backend is tested against a real local HTTP server started here that speaks LanguageTool's
``/v2/languages`` and ``/v2/check`` JSON (a stub that flags "teh" as a misspelling and "a apple" as grammar):
what is tested is creval's use of ``language_tool_python`` and its category mapping, not LanguageTool itself.
"""

from __future__ import annotations

import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import numpy as np
import pytest

from creval.corpus.model import Output
from creval.errors import InputError
from creval.metrics.base import measure_registry
from creval.metrics.grammar import (
    GrammarError,
    LanguageToolBackend,
    count_errors,
    grammar_error_rate,
    grammar_errors,
)


def test_harper_finds_known_errors():
    errs = grammar_errors("This is an test of the the linter.")
    kinds = {(e.offset, e.length, e.category) for e in errs}
    assert (19, 7, "repetition") in kinds  # "the the"
    assert any(e.offset == 8 and e.length == 2 for e in errs)  # "an test"
    assert grammar_errors("He is not that fat.") == []


def test_rates_per_char_and_line_and_exclusion():
    text = "This is an test of the the linter.\nI recieve the mesage"
    errs = grammar_errors(text)
    all_n = len(errs)
    spelling = sum(e.category == "spelling" for e in errs)
    assert spelling >= 1
    assert grammar_error_rate(text, exclude=()) == pytest.approx(all_n / len(text))
    assert grammar_error_rate(text) == pytest.approx((all_n - spelling) / len(text))
    assert grammar_error_rate(text, per="line", exclude=()) == pytest.approx(all_n / 2)
    # exclusion also matches the backend's own kind
    assert count_errors(errs, exclude=("Repetition", "spelling", "other")) < all_n - spelling
    with pytest.raises(ValueError):
        grammar_error_rate(text, per="word")


def test_lyrics_example_is_zero():
    assert grammar_error_rate("He is not that fat.") == 0.0


@pytest.mark.parametrize("text", ["", "   \n ", "?! ... ,", "床前明月光", "the moon 明月"])
def test_undefined_inputs_are_nan(text):
    assert math.isnan(grammar_error_rate(text))


def test_measure(shared_data):
    verses = (shared_data / "deepspeare" / "sonnet_valid.txt").read_text(encoding="utf-8").split("\n")[:20]
    outs = [Output(id=str(i), system="s", text=v.replace(" <eos> ", "\n")) for i, v in enumerate(verses) if v]
    outs.append(Output(id="bad", system="s", text="..."))
    res = measure_registry()["grammar"]().score(outs)
    assert set(res.values) == {"grammar_error_rate", "grammar_errors_per_line", "grammar_error_count"}
    assert np.isfinite(res.values["grammar_error_rate"][:-1]).all()
    assert math.isnan(res.values["grammar_error_rate"][-1]) and "'bad'" in res.notes[0]
    assert sum(res.artifacts["by_category"]["s"].values()) >= np.nansum(res.values["grammar_error_count"])
    sig = str(res.signatures["grammar_error_rate"])
    assert "exclude:spelling" in sig and "per:char" in sig and "harper-py" in sig
    m2 = measure_registry()["grammar"](exclude="spelling,style")
    assert m2.params["exclude"] == ("spelling", "style")


# ---------------------------------------------------------------------------- LanguageTool over a local stub


class _LTStub(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep test output quiet
        pass

    def _json(self, payload):
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.startswith("/v2/languages"):
            self._json([{"name": "English (US)", "code": "en", "longCode": "en-US"}])
        else:
            self.send_error(404)

    def do_POST(self):
        if not self.path.startswith("/v2/check"):
            self.send_error(404)
            return
        form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        text = form["text"][0]
        matches = []
        for m in re.finditer(r"\bteh\b", text):
            matches.append(
                _match(
                    text,
                    m.start(),
                    3,
                    "MORFOLOGIK_RULE_EN_US",
                    "misspelling",
                    "TYPOS",
                    "Possible spelling mistake found.",
                )
            )
        for m in re.finditer(r"\ba apple\b", text):
            matches.append(
                _match(text, m.start(), 7, "EN_A_VS_AN", "grammar", "MISC", "Use “an” instead of ‘a’.")
            )
        for m in re.finditer(r"\bgonna\b", text):
            matches.append(_match(text, m.start(), 5, "GONNA", "style", "COLLOQUIALISMS", "Colloquial."))
        self._json({"software": {"name": "LanguageTool", "version": "stub"}, "matches": matches})


def _match(text, offset, length, rule, issue, category, message):
    return {
        "message": message,
        "shortMessage": "",
        "replacements": [{"value": "x"}],
        "offset": offset,
        "length": length,
        "context": {"text": text, "offset": offset, "length": length},
        "sentence": text,
        "type": {"typeName": "Other"},
        "rule": {
            "id": rule,
            "description": message,
            "issueType": issue,
            "category": {"id": category, "name": category},
        },
        "ignoreForIncompleteSentence": False,
        "contextForSureMatch": 0,
    }


@pytest.fixture(scope="module")
def lt_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _LTStub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_languagetool_backend_over_http(lt_server):
    text = "I ate a apple and teh pear\nwe gonna win"
    errs = grammar_errors(text, "languagetool", server=lt_server)
    assert [(e.category, e.offset, e.length, e.kind) for e in sorted(errs, key=lambda e: e.offset)] == [
        ("other", 6, 7, "MISC"),
        ("spelling", 18, 3, "TYPOS"),
        ("slang", 30, 5, "COLLOQUIALISMS"),
    ]
    assert grammar_error_rate(text, backend="languagetool", server=lt_server) == pytest.approx(2 / len(text))
    assert grammar_error_rate(
        text, per="line", exclude=("spelling", "slang"), backend="languagetool", server=lt_server
    ) == pytest.approx(1 / 2)
    m = measure_registry()["grammar"](backend="languagetool", server=lt_server)
    res = m.score([Output(id="1", system="s", text=text)])
    assert res.values["grammar_error_count"][0] == 2
    assert "languagetool" in str(res.signatures["grammar_error_count"])


def test_languagetool_needs_a_server_or_a_directory(tmp_path):
    with pytest.raises(InputError, match="server="):
        LanguageToolBackend()
    with pytest.raises(InputError, match="not a LanguageTool directory"):
        LanguageToolBackend(path=str(tmp_path / "missing"))
    with pytest.raises(InputError, match="cannot use the LanguageTool server"):
        LanguageToolBackend(server="http://127.0.0.1:9/")


def test_error_record():
    e = GrammarError("grammar", "msg", 1, 2)
    assert (e.kind, e.rule) == ("", "")


def test_threads_give_the_same_errors(shared_data):
    from creval.metrics.grammar import harper_errors_many

    rows = [
        r
        for r in (shared_data / "deepspeare" / "sonnet_valid.txt").read_text("utf-8").split("\n")
        if r.strip()
    ]
    texts = ["\n".join(ln.strip().capitalize() for ln in r.split("<eos>")[:2]) for r in rows[:200]]
    assert harper_errors_many(texts, workers=2) == harper_errors_many(texts, workers=1)


def test_cli_grammar_and_lexdiv(tmp_path):
    from click.testing import CliRunner

    from creval.cli import main

    f = tmp_path / "v.txt"
    f.write_text("This is an test of the the linter.\nI recieve the mesage\n", "utf-8")
    res = CliRunner().invoke(main, ["grammar", str(f)])
    assert res.exit_code == 0, res.output
    assert "[repetition] 'the the'" in res.output and "(excluded)" in res.output
    assert f"per character {2 / len(f.read_text('utf-8')):.5f}" in res.output
    res = CliRunner().invoke(main, ["lexdiv", str(f), "--mode", "kyle"])
    assert res.exit_code == 0 and "mtld_ma_wrap" in res.output and "14.0000" in res.output
    res = CliRunner().invoke(main, ["lexdiv", str(tmp_path / "missing.txt")])
    assert res.exit_code == 2 and "cannot read file" in res.output
