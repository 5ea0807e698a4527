"""``mcrank evaluate --format html``: one self-contained page, rendered by a real browser.

The page is rendered by headless Chromium (``--dump-dom``: the DOM after the page has loaded) with
every background service of the browser off, so that the only thing it could load is what the
page asks for; the page must ask for nothing: no script, link or frame, every ``src`` a
``data:`` URI, and no ``http://`` or ``https://`` source or link. Skipped only when Chromium is
not installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mcrank.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
#: Chromium without its own traffic: no updates, sync, field trials, QUIC or first-run pages.
_QUIET = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps")  # fmt: skip
#: A source or link that would load from the network: scheme-relative (//host) or http(s).
_REMOTE = re.compile(r"""(?:src|href|action|poster|srcset)\s*=\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attributes, self.text, self._open = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += attrs
        self._open.append(tag)

    def handle_endtag(self, tag):
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag) :]

    def handle_data(self, data):  # the page's text, not its head's (title, style)
        if data.strip() and not {"head", "style", "title"} & set(self._open):
            self.text.append(data.strip())


def _parsed(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


@pytest.fixture(scope="module")
def page_path(tmp_path_factory) -> Path:
    """The page of an evaluation with the test-set uncertainty (and so a figure), written once."""
    path = tmp_path_factory.mktemp("page") / "factory.html"
    code = main(["evaluate", str(EXAMPLES / "factory.json"), "--test-uncertainty", "--seed", "1", "--samples", "2000",
                 "--format", "html", "--out", str(path), "--quiet"])  # fmt: skip
    assert code == 0
    return path


def test_the_page_asks_for_nothing_but_itself(page_path):
    page = page_path.read_text(encoding="utf-8")
    parsed = _parsed(page)
    assert parsed.text[0].startswith("choose A: ")  # the page opens with the decision
    assert not {"script", "link", "iframe", "frame", "object", "embed", "base", "audio", "video"} & set(parsed.tags)
    assert all(value.startswith("data:image/png;base64,") for key, value in parsed.attributes if key == "src")
    assert "img" in parsed.tags and not [value for key, value in parsed.attributes if key == "href"]
    assert not _REMOTE.search(page) and "url(" not in page and "@import" not in page


def test_out_html_picks_the_format_and_stdout_takes_the_page(tmp_path, capsys):
    code = main(["evaluate", str(EXAMPLES / "factory.json"), "--out", str(tmp_path / "page.html"), "--quiet"])
    assert code == 0 and (tmp_path / "page.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    capsys.readouterr()
    assert main(["evaluate", str(EXAMPLES / "factory.json"), "--format", "html"]) == 0
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it: apt-get install chromium)")
def test_chromium_renders_the_decision_and_loads_nothing(page_path, tmp_path):
    decision = _parsed(page_path.read_text(encoding="utf-8")).text[0]
    profile = tmp_path / "profile"
    profile.mkdir()
    dom = subprocess.run([CHROMIUM, *_QUIET, f"--user-data-dir={profile}", "--dump-dom", page_path.as_uri()], capture_output=True,
                         text=True, timeout=120, check=True).stdout  # fmt: skip
    rendered = _parsed(dom)
    assert decision in rendered.text and decision.startswith("choose A: ")
    assert rendered.tags.count("img") == 1 and "table" in rendered.tags
    assert not _REMOTE.search(dom) and "script" not in rendered.tags
    assert all(value.startswith("data:") for key, value in rendered.attributes if key == "src")


def test_a_figure_cuts_a_long_name_in_the_middle_and_keeps_its_dollars():
    from mcrank.figures._style import LABEL_WIDTH, model_label

    name = "logistic_" + "x" * 40 + "_C10"
    assert model_label(name) == name[:15] + "…" + name[-16:] and len(model_label(name)) == LABEL_WIDTH == 32
    assert model_label("$5 model") == r"\$5 model" and model_label("svm") == "svm"
