"""Sphinx extension: the ledger's verdicts on the pages (``dtbook.ledger``).

Two directives:

``{verdict} [BLT20] Lemma 5.1``
    placed directly under a box: one line with the ledger's verdict on that statement, the margin of
    its hardest row in this build, the witness and the kind of evidence, linked to the statement's row
    on the glance page. Several ids are separated by ``;``.
``{ledger-glance}``
    the page "The five papers at a glance": per paper the counts by verdict, its blueprint (a
    dependency graph, nodes coloured by verdict and linked to their boxes) and the table of every
    statement with its verdict, margin and witness.

Both are filled in when every page has been read (``doctree-resolved``), from the verification rows
that each chapter wrote as it closed (``_build/verdicts/<chapter>.json`` under the book's root, see
``dtbook.chapter.close_chapter``). The build warns (and so fails under ``-W``) when an id is not
in the ledger, when a page with verdict lines left no rows, and when the rows of an entry support a
verdict other than the ledger's or disagree among themselves.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from dtbook import ledger
from dtbook.ledger import blueprint

logger = logging.getLogger(__name__)
GLANCE_DOC = "book/glance"


class verdict_placeholder(nodes.General, nodes.Element):
    pass


class glance_placeholder(nodes.General, nodes.Element):
    pass


class headlines_placeholder(nodes.General, nodes.Element):
    pass


class runtimes_placeholder(nodes.General, nodes.Element):
    pass


def _placeholder_directive(node_class: type[nodes.Element]) -> type[SphinxDirective]:
    """A directive without arguments that leaves a ``node_class`` node, filled in once every page is read."""

    class PlaceholderDirective(SphinxDirective):
        has_content = False

        def run(self) -> list[nodes.Node]:
            return [node_class()]

    return PlaceholderDirective


class VerdictDirective(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    has_content = False

    def run(self) -> list[nodes.Node]:
        node = verdict_placeholder()
        node["entries"] = [part.strip() for part in self.arguments[0].split(";") if part.strip()]
        node["source_line"] = (self.env.docname, self.lineno)
        return [node]


def _rows(app: Sphinx) -> dict[str, list[dict[str, Any]]]:
    if not hasattr(app, "_ledger_rows"):
        folder = Path(app.srcdir) / "_build" / "verdicts"
        pages: dict[str, list[dict[str, Any]]] = {}
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            data = json.loads(path.read_text(encoding="utf-8"))
            pages[path.stem] = data["rows"]
            app._ledger_seconds = {**getattr(app, "_ledger_seconds", {}), path.stem: data.get("seconds")}
        app._ledger_rows = pages  # type: ignore[attr-defined]
    return app._ledger_rows  # type: ignore[attr-defined]


def _findings(app: Sphinx) -> dict[str, ledger.Finding]:
    if not hasattr(app, "_ledger_findings"):
        rows = [r for page_rows in _rows(app).values() for r in page_rows]
        findings = {e.id: ledger.derive_verdict(e.id, rows) for e in ledger.entries()}
        pages = _rows(app)
        for e in ledger.entries():
            f = findings[e.id]
            if e.page and e.page not in pages:
                continue  # that page did not run in this build (warned where its verdict line is)
            for problem in f.problems:
                logger.warning(f"ledger: {problem}")
            if not ledger.agrees(e.verdict, f.verdict):
                logger.warning(f"ledger: {e.id} is declared '{e.verdict}' but its rows support '{f.verdict}'")
        # a page the ledger does not cover (the performance appendix) leaves its rows' ledger empty
        unknown = sorted({str(r.get("ledger")) for r in rows if r.get("ledger")} - {e.id for e in ledger.entries()})
        if unknown:
            logger.warning(f"ledger: rows name entries that are not in the ledger: {unknown}")
        app._ledger_findings = findings  # type: ignore[attr-defined]
    return app._ledger_findings  # type: ignore[attr-defined]


def _uri(app: Sphinx, fromdoc: str, todoc: str, anchor: str = "") -> str:
    uri = app.builder.get_relative_uri(fromdoc, todoc)
    return f"{uri}#{anchor}" if anchor else uri


def _entry_href(app: Sphinx, fromdoc: str, e: ledger.Entry) -> str:
    if e.page and e.box:
        return _uri(app, fromdoc, f"book/{e.page}", e.box)
    return _uri(app, fromdoc, GLANCE_DOC, e.anchor)


def _chip(verdict: str) -> str:
    return (f'<span class="verdict-chip" style="display:inline-block; width:0.8em; height:0.8em; '
            f'border-radius:2px; border:1px solid #333; background:{ledger.VERDICT_COLOURS[verdict]}; '
            'vertical-align:-0.05em"></span>')


def _margin_text(e: ledger.Entry, f: ledger.Finding) -> str:
    if e.verdict in ("holds", "tight", "refuted") and math.isfinite(f.margin):
        return f"{f.margin:.3g}"
    return "—"


def _verdict_html(app: Sphinx, docname: str, entry_ids: list[str]) -> str:
    findings = _findings(app)
    lines = []
    for entry_id in entry_ids:
        e = ledger.entry(entry_id)
        text = ledger.verdict_line(e, findings.get(entry_id))
        link = _uri(app, docname, GLANCE_DOC, e.anchor)
        lines.append(f'<p class="verdict-line" data-entry="{html.escape(e.id, quote=True)}" '
                     f'data-verdict="{html.escape(e.verdict)}">{_chip(e.verdict)} <strong>Verdict</strong> '
                     f'(<a href="{html.escape(link, quote=True)}">{html.escape(e.id)}</a>): {html.escape(text)}</p>')
    return "".join(lines)


def _paper_html(app: Sphinx, docname: str, paper: str) -> str:
    items = ledger.paper_entries(paper)
    if not items:
        return ""
    findings = _findings(app)
    counts = blueprint.counts(items)
    claims = [e for e in items if e.is_claim]
    count_text = ", ".join(f"{n} {ledger.VERDICT_TEXT[v]}" for v, n in counts.items() if n and v not in
                           ("implemented",))
    parts = [f'<section class="ledger-paper" id="ledger-paper-{paper.lower()}">',
             f'<h2>[{html.escape(paper)}] {html.escape(ledger.PAPERS[paper][1])}</h2>',
             f'<p>{len(claims)} statements: {html.escape(count_text)}; '
             f'{counts["implemented"]} definitions and algorithms implemented.</p>']

    def title(e: ledger.Entry) -> str:
        return f"{e.id}: {ledger.verdict_line(e, findings.get(e.id))}"

    drawn = blueprint.with_external(items, ledger.by_id())
    parts.append('<div class="blueprint-frame" style="overflow-x:auto">'
                 + blueprint.svg(drawn, href=lambda e: _entry_href(app, docname, e), title=title,
                                 svg_id=f"blueprint-{paper.lower()}",
                                 external=frozenset(e.id for e in drawn if e.paper != paper))
                 + "</div>")
    parts.append(blueprint.legend_html(tuple(v for v, n in counts.items() if n)))
    rows = []
    for e in items:
        f = findings[e.id]
        box = (f'<a href="{html.escape(_entry_href(app, docname, e), quote=True)}">{html.escape(e.number)}</a>'
               if e.page and e.box else html.escape(e.number))
        rests = ", ".join(ledger.resting_on(e.id)) if e.is_claim else ""
        witness = e.witness or f.witness or ""
        rows.append(f'<tr id="{e.anchor}"><td>{box}</td><td>{html.escape(e.statement)}</td>'
                    f'<td>{_chip(e.verdict)} {html.escape(ledger.VERDICT_TEXT[e.verdict])}</td>'
                    f'<td class="ledger-num">{_margin_text(e, f)}</td>'
                    f'<td>{html.escape(witness)}{"<br>" if witness and e.evidence else ""}'
                    f'{html.escape(e.evidence)}{html.escape(" · needs " + e.needs) if e.needs else ""}'
                    f'{html.escape(" · " + e.why) if e.why else ""}'
                    f'{html.escape(" · rests on " + rests) if rests else ""}</td></tr>')
    parts.append('<details class="ledger-table"><summary>Every statement of the paper: verdict, margin, '
                 'witness</summary><div style="overflow-x: auto"><table class="table ledger"><thead><tr><th>statement</th><th>in our words</th>'
                 '<th>verdict</th><th>margin</th><th>witness and evidence</th></tr></thead><tbody>'
                 + "".join(rows) + "</tbody></table></div></details></section>")
    return "".join(parts)


def _glance_html(app: Sphinx, docname: str) -> str:
    items = [e for e in ledger.entries() if e.is_claim]
    total = blueprint.counts(items)
    summary = ", ".join(f"{n} {ledger.VERDICT_TEXT[v]}" for v, n in total.items() if n)
    out = [f'<p class="ledger-total">Across the five papers and the results they cite, {len(items)} '
           f'statements: {html.escape(summary)}. Margin = measured/bound at the hardest case found '
           '(1 is at the bound); room = 1/margin.</p>']
    out.extend(_paper_html(app, docname, paper) for paper in ledger.PAPERS)
    return "".join(out)


def _bars_svg(app: Sphinx, docname: str) -> str:
    """One stacked bar per paper: its statements by verdict (the landing page's figure)."""
    papers = [p for p in ledger.PAPERS if any(e.is_claim for e in ledger.paper_entries(p))]
    order = [v for v in ledger.VERDICTS if v != "implemented"]
    counts = {p: blueprint.counts([e for e in ledger.paper_entries(p) if e.is_claim]) for p in papers}
    widest = max((sum(counts[p].values()) for p in papers), default=1)
    left, unit, bar, gap, top = 74, min(14.0, 520 / max(widest, 1)), 20, 10, 8
    shown = [v for v in order if any(counts[p][v] for p in papers)]
    legend_width = sum(15 + blueprint.CHAR_WIDTH * len(ledger.VERDICT_TEXT[v]) + 16 for v in shown)
    width = max(left + unit * widest + 40, left + legend_width)
    height = top + len(papers) * (bar + gap) + 34
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="ledger-bars" role="img" viewBox="0 0 {width:.0f} '
           f'{height:.0f}" width="{width:.0f}" height="{height:.0f}" style="max-width: 100%; height: auto; '
           f'{blueprint.FONT}"><title>Statements of each paper by the book\'s verdict</title>']
    for i, paper in enumerate(papers):
        y = top + i * (bar + gap)
        href = html.escape(_uri(app, docname, GLANCE_DOC, f"ledger-paper-{paper.lower()}"), quote=True)
        out.append(f'<a href="{href}"><text x="{left - 8}" y="{y + bar / 2 + 4:.1f}" text-anchor="end" '
                   f'fill="#222">[{paper}]</text></a>')
        x = float(left)
        for verdict in order:
            n = counts[paper][verdict]
            if not n:
                continue
            fill = ledger.VERDICT_COLOURS[verdict]
            out.append(f'<rect x="{x:.1f}" y="{y}" width="{unit * n:.1f}" height="{bar}" fill="{fill}" '
                       f'stroke="#fff" stroke-width="1"><title>[{paper}]: {n} {ledger.VERDICT_TEXT[verdict]}</title>'
                       '</rect>')
            if unit * n >= 14:
                out.append(f'<text x="{x + unit * n / 2:.1f}" y="{y + bar / 2 + 4:.1f}" text-anchor="middle" '
                           f'fill="{blueprint._text_colour(fill)}">{n}</text>')
            x += unit * n
    y = top + len(papers) * (bar + gap) + 14
    x = float(left)
    for verdict in order:
        if not any(counts[p][verdict] for p in papers):
            continue
        label = ledger.VERDICT_TEXT[verdict]
        out.append(f'<rect x="{x:.1f}" y="{y - 9}" width="11" height="11" fill="{ledger.VERDICT_COLOURS[verdict]}" '
                   f'stroke="#333" stroke-width="0.8"/><text x="{x + 15:.1f}" y="{y + 1}" fill="#222">{label}</text>')
        x += 15 + blueprint.CHAR_WIDTH * len(label) + 16
    out.append("</svg>")
    return "".join(out)


def _headlines_html(app: Sphinx, docname: str) -> str:
    findings = _findings(app)
    claims = [e for e in ledger.entries() if e.is_claim]
    total = blueprint.counts(claims)

    def link(e: ledger.Entry) -> str:
        return f'<a href="{html.escape(_uri(app, docname, GLANCE_DOC, e.anchor), quote=True)}">{html.escape(e.id)}</a>'

    summary = ", ".join(f"{n} {ledger.VERDICT_TEXT[v]}" for v, n in total.items() if n)
    items = []
    refuted = [e for e in claims if e.verdict == "refuted"]
    if refuted:
        items.append("<li><strong>Refuted</strong>: " + "; ".join(
            f"{link(e)} at {html.escape(e.witness)}" for e in refuted) + ".</li>")
    tight = [e for e in claims if e.verdict == "tight"]
    if tight:
        items.append("<li><strong>Tight</strong> (the bound is reached): " + ", ".join(link(e) for e in tight)
                     + ".</li>")
    roomy = sorted((e for e in claims if e.verdict == "holds" and math.isfinite(findings[e.id].margin)),
                   key=lambda e: -findings[e.id].margin)
    if roomy:
        close = roomy[:3]
        items.append("<li><strong>Closest calls</strong> among the statements that hold: " + ", ".join(
            f"{link(e)} (margin {findings[e.id].margin:.2f})" for e in close) + ".</li>")
    untestable = [e for e in claims if e.verdict in ("untestable", "not reproduced")]
    if untestable:
        items.append("<li><strong>Untestable here or not reproduced</strong>: " + ", ".join(
            link(e) for e in untestable) + ".</li>")
    return (f'<p>The book gives {len(claims)} printed statements one verdict each: {html.escape(summary)}.</p>'
            f'<figure class="ledger-headline-figure">{_bars_svg(app, docname)}<figcaption>Each paper\'s '
            'statements by the book\'s verdict (click a paper for its blueprint).</figcaption></figure>'
            f'<ul class="ledger-headlines">{"".join(items)}</ul>')


def _runtimes_html(app: Sphinx, docname: str) -> str:
    pages = _rows(app)
    seconds = getattr(app, "_ledger_seconds", {})
    body = []
    for page in sorted(pages):
        rows = pages[page]
        counted = sum(r.get("kind") in ("theorem", "identity", "counterexample") for r in rows)
        run = seconds.get(page)
        time_text = "—" if run is None else (f"{run:.0f} s" if run < 120 else f"{run / 60:.1f} min")
        link = html.escape(_uri(app, docname, f"book/{page}"), quote=True)
        body.append(f'<tr><td><a href="{link}">{html.escape(page)}</a></td><td class="ledger-num">{time_text}</td>'
                    f'<td class="ledger-num">{len(rows)}</td><td class="ledger-num">{counted}</td></tr>')
    return ('<div style="overflow-x: auto"><table class="table ledger-runtimes"><caption>The run behind each page of this build: its '
            'wall time on the machine that built the book, and its verification rows.</caption><thead><tr>'
            '<th>page</th><th>run time</th><th>rows</th><th>counted rows</th></tr></thead><tbody>'
            + "".join(body) + "</tbody></table></div>")


def fill(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    pages = _rows(app)
    for node in list(doctree.findall(verdict_placeholder)):
        known = ledger.by_id()
        missing = [i for i in node["entries"] if i not in known]
        if missing:
            logger.warning(f"{docname}: verdict names entries that are not in the ledger: {missing}",
                           location=node)
            node.replace_self(nodes.paragraph(text=""))
            continue
        stem = docname.rsplit("/", 1)[-1]
        if stem not in pages:
            logger.warning(f"{docname}: no verification rows of this page in _build/verdicts/ (was it executed?)",
                           location=node)
        node.replace_self(nodes.raw("", _verdict_html(app, docname, node["entries"]), format="html"))
    for node in list(doctree.findall(runtimes_placeholder)):
        node.replace_self(nodes.raw("", _runtimes_html(app, docname), format="html"))
    for node in list(doctree.findall(headlines_placeholder)):
        node.replace_self(nodes.raw("", _headlines_html(app, docname), format="html"))
    for node in list(doctree.findall(glance_placeholder)):
        node.replace_self(nodes.raw("", _glance_html(app, docname), format="html"))


def write_findings(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    findings = _findings(app)
    out = {e.id: {"declared": e.verdict, "found": findings[e.id].verdict, "margin": findings[e.id].margin,
                  "page": e.page, "box": e.box, "rows": len(findings[e.id].rows),
                  "problems": findings[e.id].problems} for e in ledger.entries()}
    Path(app.outdir, "_static").mkdir(parents=True, exist_ok=True)
    Path(app.outdir, "_static", "ledger.json").write_text(json.dumps(out, indent=1, default=str), encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(verdict_placeholder)
    app.add_node(glance_placeholder)
    app.add_directive("verdict", VerdictDirective)
    app.add_directive("ledger-glance", _placeholder_directive(glance_placeholder))
    app.add_node(headlines_placeholder)
    app.add_node(runtimes_placeholder)
    app.add_directive("run-times", _placeholder_directive(runtimes_placeholder))
    app.add_directive("ledger-headlines", _placeholder_directive(headlines_placeholder))
    app.connect("doctree-resolved", fill)
    app.connect("build-finished", write_findings)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": False}
