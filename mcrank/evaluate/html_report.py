"""The renderings every result shares (:mod:`mcrank.evaluate.protocol`): a one-line ``repr``, an
HTML table, and the self-contained HTML page of ``mcrank evaluate --format html``.

Each is built from what the result's own report module registers: its text report (``"text"``,
whose first lines are the decision), its records (``"records"``, one dict per model) and its
heading (``"heading"``). A report module that registers ``"repr"`` or ``"html_table"`` of its own
replaces these, and one that registers ``"html_records"`` has its tables built from those
instead of its records (an infinite value the JSON-ready records hold as None shown as such).

:func:`html_table` (``_repr_html_()``) is the decision and one row per model: a metric's score
and its rank (``X`` and ``X_rank`` in the records) share a cell, ``0.6200 (2)``, and an interval
(``X_low``, ``X_high``) one after ``X``; the numbers of
a column share one format (:func:`mcrank.evaluate.report.column_format`). Every text is escaped
(:func:`html.escape`: a model's name is the user's input), and a name longer than
:data:`NAME_WIDTH` characters is cut in the middle, in full in the cell's ``title``.

:func:`render_page` is one page for one or more results of one command (``--scores`` makes a
ranking and decision curves): it opens with the first result's decision, then each result's
table, its text report in full (folded; ``"details"`` where the type registers it, as
``--details`` prints it) and the figures given, as PNG images embedded in the page
(``data:`` URIs). It loads nothing: no script, no font, no link; its Content-Security-Policy
forbids any other source. The figures are drawn by :mod:`mcrank.figures.report_figures`, which
calls this (this layer draws nothing).
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Sequence

from mcrank.evaluate.protocol import ResultProtocol, rendering, renders
from mcrank.evaluate.report import _cut, column_format, printable

__all__ = ["NAME_WIDTH", "decision_text", "html_table", "render_page", "short_repr"]

#: A model's name is cut to this many characters in an HTML table (in full in its ``title``).
NAME_WIDTH = 40
#: The columns of the records that hold a model's name.
_NAME_COLUMNS = ("model", "classifier")

_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1b1b1b;
       margin: 0; background: #fafafa; }
main { max-width: 70rem; margin: 0 auto; padding: 1.5rem 2rem 3rem; background: #fff; }
.decision { font-size: 1.3rem; font-weight: 600; margin: 0.2rem 0 0.4rem; }
.decision + .decision { font-size: 1rem; font-weight: 400; color: #333; margin: 0.2rem 0; }
section .decision { font-size: 1rem; }
h2 { font-size: 1.1rem; margin: 2rem 0 0.5rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
table.mcrank { border-collapse: collapse; margin: 0.6rem 0; font-variant-numeric: tabular-nums; }
table.mcrank th, table.mcrank td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #e4e4e4; text-align: right;
                                    white-space: nowrap; }
table.mcrank th { background: #f1f3f5; font-weight: 600; }
table.mcrank td.name, table.mcrank th.name { text-align: left; }
table.mcrank tbody tr:first-child td { font-weight: 600; }
.scroll { overflow-x: auto; }
details { margin: 0.8rem 0; }
summary { cursor: pointer; color: #245; }
pre { font: 13px/1.35 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; background: #f6f8fa; padding: 0.8rem;
      overflow-x: auto; }
figure { margin: 1.2rem 0; }
figure img { max-width: 100%; height: auto; }
figcaption { color: #444; font-size: 0.9rem; }
footer { color: #777; font-size: 0.8rem; margin-top: 2rem; }
"""

#: Nothing but the page itself and its embedded images: a browser then loads nothing else.
_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def decision_text(result) -> list[str]:
    """The decision of ``result``: the lines of its text report before the first blank one, each
    sentence unwrapped (a wrapped sentence's lines go on indented)."""
    sentences: list[str] = []
    for line in rendering(result, "text")(result).splitlines():
        if not line.strip():
            break
        if line.startswith("  ") and sentences:
            sentences[-1] += " " + line.strip()
        else:
            sentences.append(line.strip())
    return sentences


def short_repr(result) -> str:
    """``<Type: N models; choose ...>``: one line, whatever the result holds."""
    count = len(rendering(result, "records")(result))
    decision = (decision_text(result) or [""])[0]
    return f"<{type(result).__name__}: {count} model{'' if count == 1 else 's'}; {decision}>"


def _number_cells(values: list) -> list[str]:
    numbers = [v for v in values if isinstance(v, float) and math.isfinite(v)]
    form = column_format(numbers) if numbers else str
    cells = []
    for v in values:
        if v is None:
            cells.append("-")
        elif isinstance(v, bool):
            cells.append("yes" if v else "no")
        elif isinstance(v, int):
            cells.append(str(v))
        elif isinstance(v, float) and math.isnan(v):
            cells.append("undefined")
        elif isinstance(v, float) and math.isinf(v):
            cells.append("+inf" if v > 0 else "-inf")
        elif isinstance(v, float):
            cells.append(form(v))
        else:
            cells.append(str(v))
    return cells


def _columns(records: list[dict]) -> list[tuple[str, list[str], bool]]:
    """The table's columns, (heading, cells, is a name): ``X`` (or ``X_score``) and ``X_rank`` in
    one cell."""
    keys = list(records[0]) if records else []
    rank_of = {}  # value column -> its rank column: X_rank ranks X, or X_score (brier_rank, brier_score)
    for key in keys:
        stem = key[: -len("_rank")]
        if key.endswith("_rank") and (value := next((k for k in (stem, f"{stem}_score") if k in keys), None)):
            rank_of[value] = key
    columns = []
    for key in keys:
        if key in rank_of.values():
            continue
        if key.endswith(("_low", "_high")) and key.rpartition("_")[0] in keys:
            continue
        values = [row.get(key) for row in records]
        if key in _NAME_COLUMNS:
            columns.append((key, [printable(v) for v in values], True))
            continue
        cells = _number_cells(values)
        if key in rank_of:
            ranks = [row.get(rank_of[key]) for row in records]
            cells = [cell if rank is None else f"{cell} ({rank})" for cell, rank in zip(cells, ranks)]
        columns.append((key.replace("_", " "), cells, False))
        if f"{key}_low" in keys and f"{key}_high" in keys:  # an interval, in one cell after its centre
            ends = _number_cells([row.get(f"{key}_{end}") for row in records for end in ("low", "high")])
            columns.append(("95% interval", [f"[{ends[2 * k]}, {ends[2 * k + 1]}]" for k in range(len(records))], False))
    return columns


def _table(records: list[dict]) -> str:
    columns = _columns(records)
    head = "".join(f'<th class="name">{html.escape(h)}</th>' if name else f"<th>{html.escape(h)}</th>" for h, _, name in columns)
    rows = []
    for k in range(len(records)):
        cells = []
        for _, values, name in columns:
            text = values[k]
            if name and len(text) > NAME_WIDTH:
                cells.append(f'<td class="name" title="{html.escape(text)}">{html.escape(_cut(text, NAME_WIDTH))}</td>')
            else:
                cells.append(f'<td class="name">{html.escape(text)}</td>' if name else f"<td>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f'<div class="scroll"><table class="mcrank"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _decision_html(result, tag: str = "p") -> str:
    return "".join(f'<{tag} class="decision">{html.escape(line)}</{tag}>' for line in decision_text(result))


def _records(result) -> list[dict]:
    """The rows of ``result``'s table: its ``"html_records"`` where registered, else its records."""
    try:
        return rendering(result, "html_records")(result)
    except TypeError:  # none registered
        return rendering(result, "records")(result)


def html_table(result) -> str:
    """``result`` as an HTML fragment: its decision, then one row per model (module docstring)."""
    return f'<div class="mcrank-result">{_decision_html(result)}{_table(_records(result))}</div>'


def _section(result, *, decision: bool) -> str:
    heading = html.escape(rendering(result, "heading")(result))
    table = rendering(result, "html_table")(result) if decision else _table(_records(result))
    try:  # the report in full where the type has a longer one (``--details``)
        full = rendering(result, "details")
    except TypeError:  # none registered: its text is all of it
        full = rendering(result, "text")
    report = html.escape(full(result).rstrip("\n"))
    return (f"<section><h2>{heading}</h2>{table}<details><summary>The full text report</summary><pre>{report}</pre></details>"
            "</section>")  # fmt: skip


def render_page(results: Sequence, figures: Sequence[tuple[str, bytes]] = (), *, title: str = "mcrank evaluate") -> str:
    """One self-contained HTML page of ``results`` (one or more, of one command).

    Parameters
    ----------
    results : sequence of results
        Each answers the protocol of :mod:`mcrank.evaluate.protocol`; the page opens with the
        first one's decision.
    figures : sequence of (str, bytes)
        Each figure's caption and its PNG image, embedded in the page.
    title : str
        The page's title (the browser's tab).

    Returns
    -------
    str
        The page: inline style, images as ``data:`` URIs, no script and nothing to load.
    """
    from mcrank import __version__

    if not results:
        raise ValueError("results: give at least one result")
    body = [f"<header>{_decision_html(results[0], 'p')}</header>"]
    body += [_section(result, decision=index > 0) for index, result in enumerate(results)]
    for caption, png in figures:
        data = base64.b64encode(png).decode("ascii")
        body.append(f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
                    f"<figcaption>{html.escape(caption)}</figcaption></figure>")  # fmt: skip
    body.append(f"<footer>mcrank {html.escape(__version__)}</footer>")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )


renders(ResultProtocol, repr=short_repr, html_table=html_table)
