"""Every result type answers one protocol (mcrank.evaluate.protocol): str() is the report and opens
with the decision, repr() is one line, to_frame() has a row per model, _repr_html_() is an HTML
table with the user's names escaped and long ones cut, to_dict() survives JSON."""

from __future__ import annotations

import json
import sys
from html.parser import HTMLParser

import numpy as np
import pytest

from mcrank.evaluate import compare_folds, decision_curves, evaluate, rank_scoring, scored_test_set
from mcrank.evaluate.html_report import NAME_WIDTH, decision_text, render_page
from mcrank.evaluate.per_item import evaluate_per_item
from mcrank.evaluate.protocol import ResultProtocol

#: A name that would run as a script were it not escaped, and one longer than the tables show.
EVIL = "<script>alert(1)</script>"
LONG = "gradient_boosting_" + "x" * 60 + "_depth3"
EQ4 = [[15, -335], [-35, 165]]


def _scores(items: int = 120, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, items)
    good = np.clip(0.4 * y + 0.6 * rng.random(items), 0, 1)
    fair = np.clip(0.2 * y + 0.8 * rng.random(items), 0, 1)
    return y, {EVIL: good, LONG: fair}


def _evaluation():
    return evaluate({EVIL: [[27, 15], [23, 35]], LONG: [[43, 18], [7, 32]]}, EQ4, classes=["long", "short"])


def _evaluation_uncertain():
    return evaluate({EVIL: [[27, 15], [23, 35]], LONG: [[43, 18], [7, 32]]}, EQ4, classes=["long", "short"],
                    test_uncertainty=True, samples=2000, rng=1)  # fmt: skip


def _scoring():
    y, scores = _scores()
    return rank_scoring(scored_test_set(y, scores, positive=1, classes=[1, 0]), [[1, -1], [-2, 0]], rng=2)


def _curves():
    y, scores = _scores()
    return decision_curves(y, scores, positive=1, thresholds=[0.1, 0.2, 0.3, 0.5], test_uncertainty=True, samples=400, rng=3)


def _curves_plain():
    y, scores = _scores()
    return decision_curves(y, scores, positive=1, thresholds=[0.1, 0.3, 0.5])


def _folds():
    rng = np.random.default_rng(4)
    return compare_folds({EVIL: 0.3 + 0.1 * rng.random(10), LONG: 0.1 * rng.random(10)}, repeats=1, samples=2000, rng=5)


def _per_item():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 60)
    predictions = {EVIL: np.where(rng.random(60) < 0.8, y, 1 - y), LONG: rng.integers(0, 2, 60)}
    utility = np.broadcast_to(np.array([[1.0, -1.0], [-1.0, 1.0]]), (60, 2, 2))
    return evaluate_per_item(y, predictions, utility, classes=[0, 1])


def _probabilities():
    y, scores = _scores()
    return evaluate(y_true=y, probabilities={EVIL: scores[EVIL], LONG: scores[LONG]}, utility=[[1.0, -1.0], [-2.0, 0.0]],
                    classes=[1, 0], positive=1, recalibration=None)  # fmt: skip


RESULTS = {
    "evaluation": _evaluation,
    "evaluation with test-set uncertainty": _evaluation_uncertain,
    "scoring": _scoring,
    "decision curves": _curves,
    "decision curves without bands": _curves_plain,
    "folds": _folds,
    "per item": _per_item,
    "probabilities": _probabilities,
}


@pytest.fixture(scope="module", params=list(RESULTS))
def result(request):
    return RESULTS[request.param]()


class _Tags(HTMLParser):
    """The tags, the attributes and the text of a fragment, as a browser's parser reads them."""

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
        if not {"head", "style", "title"} & set(self._open):
            self.text.append(data)


def _parsed(fragment: str) -> _Tags:
    parser = _Tags()
    parser.feed(fragment)
    parser.close()
    return parser


def test_every_result_type_answers_the_protocol(result):
    assert isinstance(result, ResultProtocol)


def test_str_is_the_report_and_opens_with_the_decision(result):
    text = str(result)
    assert text.startswith("choose "), text.splitlines()[0]
    assert "=" not in text.splitlines()[0] or "P(" in text.splitlines()[0]  # a sentence, not a field dump
    assert type(result).__name__ + "(" not in text


def test_repr_is_one_short_line(result):
    shown = repr(result)
    assert "\n" not in shown and shown.startswith(f"<{type(result).__name__}: 2 models; choose ")
    assert len(shown) < 400 and "array(" not in shown


def test_to_frame_has_one_row_per_model(result):
    frame = result.to_frame()
    names = frame["model" if "model" in frame else "classifier"].tolist()
    assert len(frame) == 2 and sorted(names) == sorted([EVIL, LONG])
    assert frame.columns.is_unique


def test_to_frame_without_pandas_names_the_extra(result, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"needs pandas .*mcrank\[sklearn\].*to_records\(\)"):
        result.to_frame()


def test_repr_html_is_a_table_with_the_names_escaped_and_cut(result):
    fragment = result._repr_html_()
    parsed = _parsed(fragment)
    assert "script" not in parsed.tags and "<script>" not in fragment
    assert parsed.tags.count("table") == 1 and parsed.tags.count("tr") == 3  # the heading and a row per model
    cells = [text for text in parsed.text if text.strip()]
    assert EVIL in cells  # shown as text
    assert LONG not in cells and any(len(cell) == NAME_WIDTH and "…" in cell for cell in cells)
    assert ("title", LONG) in parsed.attributes  # in full on hover
    assert cells[0].startswith("choose ")


def test_to_dict_round_trips_through_json(result):
    document = result.to_dict()
    text = json.dumps(document, allow_nan=False)  # no NaN or Infinity token: they are not JSON
    assert json.loads(text) == json.loads(json.dumps(json.loads(text)))
    assert EVIL in text and LONG in text


def test_records_are_the_frame(result):
    records = result.to_records()
    assert list(result.to_frame().columns) == list(records[0])


def test_a_page_opens_with_the_decision_and_loads_nothing(result):
    page = render_page([result], [("a figure", b"\x89PNG fake")])
    parsed = _parsed(page)
    first = next(text for text in parsed.text if text.strip())
    assert first.startswith("choose ") and first.startswith(str(result).splitlines()[0].strip())
    assert not {"script", "link", "iframe", "object", "embed"} & set(parsed.tags)
    sources = [value for key, value in parsed.attributes if key in ("src", "href")]
    assert sources == ["data:image/png;base64,iVBORyBmYWtl"]
    assert "url(" not in page and "@import" not in page


def test_the_decision_of_the_curves_names_where_each_strategy_is_highest():
    curves = decision_curves([1, 1, 0, 0], {"a": [0.9, 0.4, 0.3, 0.1]}, positive=1, thresholds=[0.2, 0.35, 0.5, 0.95])
    # NB(a) = TP/N - FP/N * t/(1 - t): 0.4375 at 0.2 (TP 2, FP 1), 0.5 at 0.35, 0.25 at 0.5, 0 at 0.95 (nothing
    # treated: level with treat none, and a model comes first of equals); treat all: 0.375, 0.231, 0, -9.
    first, second = decision_text(curves)  # the report's first lines, unwrapped
    assert first.startswith("choose a: the highest mean net benefit over the 4 thresholds; by point estimates alone")
    assert second == "the highest net benefit at each threshold: a at 0.20-0.95"


def test_the_curves_records_put_the_best_first():
    curves = decision_curves([1, 1, 0, 0], {"b": [0.6, 0.6, 0.6, 0.6], "a": [0.9, 0.4, 0.3, 0.1]}, positive=1, thresholds=[0.2, 0.5])
    # a: 0.4375 and 0.25 (above); b treats everyone below 0.6: treat all's 0.375 and 0 (a tie with treat all, which
    # comes after the models).
    rows = curves.to_records()
    assert [(row["rank"], row["model"], row["highest_at"]) for row in rows] == [(1, "a", 2), (2, "b", 0)]
    assert rows[0]["mean_net_benefit"] == pytest.approx((0.4375 + 0.25) / 2) and rows[0]["highest_at_thresholds"] == "0.2-0.5"
