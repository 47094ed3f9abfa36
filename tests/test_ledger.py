"""The ledger (dtbook.ledger): one verdict per printed statement, rendered beside every box.

Grouped by what each test guards: the ledger's own consistency, the verdict the rows support
(each rule shown able to fail on synthetic rows), the pages (a verdict line directly under every box
the ledger names), and the blueprint drawing.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from dtbook import ledger
from dtbook.ledger import blueprint

REPO = Path(__file__).resolve().parents[1]
BOX = re.compile(r"(?P<fence>:{3,}|`{3,})\{prf:(?P<kind>\w+)\}[^\n]*\n(?P<options>(?::[\w-]+:[^\n]*\n)*)")
VERDICT = re.compile(r"`{3,}\{verdict\}\s*(?P<ids>[^\n]+)\n`{3,}")


def notebook_markdown(page: str) -> list[str]:
    path = REPO / "book" / f"{page}.ipynb"
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


def boxes(page: str) -> dict[str, tuple[int, int]]:
    """label -> (markdown cell index, end offset of the box) for every labelled box of a page."""
    out = {}
    for i, text in enumerate(notebook_markdown(page)):
        for m in BOX.finditer(text):
            label = re.search(r":label:\s*(\S+)", m.group("options"))
            if not label:
                continue
            close = re.compile(rf"^{re.escape(m.group('fence'))}[ \t]*$", re.M)
            end = close.search(text, m.end())
            out[label.group(1)] = (i, end.end() if end else len(text))
    return out


PAGES = sorted({e.page for e in ledger.entries() if e.page})


# --- the ledger itself ------------------------------------------------------------------------------

def test_entries_load_with_ids_in_the_one_citation_style() -> None:
    items = ledger.entries()
    assert items
    for e in items:
        assert ledger.ID_PATTERN.match(e.id), e.id
        assert e.paper in ledger.PAPERS


def test_every_paper_of_the_book_has_entries() -> None:
    papers = {e.paper for e in ledger.entries()}
    assert {"BLT20", "OSSS05"} <= papers


def test_a_refuted_entry_must_name_its_witness_and_hypotheses() -> None:
    raw = {"id": "[BLT20] Lemma 9.9", "kind": "lemma", "statement": "x", "verdict": "refuted"}
    with pytest.raises(ValueError, match="witness"):
        ledger._check_entry(raw, "test")
    with pytest.raises(ValueError, match="hypotheses"):
        ledger._check_entry({**raw, "witness": "00ff"}, "test")
    with pytest.raises(ValueError, match="verdict must be one of"):
        ledger._check_entry({**raw, "verdict": "probably"}, "test")
    with pytest.raises(ValueError, match="needs="):
        ledger._check_entry({**raw, "verdict": "untestable"}, "test")
    with pytest.raises(ValueError, match="claims nothing"):
        ledger._check_entry({**raw, "kind": "definition", "verdict": "holds"}, "test")


def test_dependencies_are_acyclic_and_known() -> None:
    a = ledger.Entry(id="[BLT20] Lemma 1", kind="lemma", statement="", verdict="holds", uses=("[BLT20] Lemma 2",))
    b = ledger.Entry(id="[BLT20] Lemma 2", kind="lemma", statement="", verdict="holds", uses=("[BLT20] Lemma 1",))
    with pytest.raises(ValueError, match="cycle"):
        ledger._check_acyclic([a, b])


def test_a_row_no_entry_lists_is_refused() -> None:
    with pytest.raises(ValueError, match="names no ledger entry"):
        ledger.entry_for_row("01_top_down_guarantees", "Lemma 99 (nowhere)")


# --- verdicts from rows: each rule can fail ------------------------------------------------------------

def _row(kind: str, margin: float, *, holds: bool = True, entry: str = "[BLT20] Lemma 5.1", **extra: object) -> dict:
    return {"kind": kind, "margin": margin, "holds": holds, "ledger": entry, "quantity": "q", **extra}


def test_theorem_rows_give_holds_with_room_or_tight() -> None:
    found = ledger.derive_verdict("[BLT20] Lemma 5.1", [_row("theorem", 0.25), _row("theorem", 0.5)])
    assert (found.verdict, found.margin, found.room) == ("holds", 0.5, 2.0)
    assert ledger.derive_verdict("[BLT20] Lemma 5.1", [_row("theorem", 1.0)]).verdict == "tight"
    by_construction = _row("theorem", 1.0, tight="equality claim")
    assert ledger.derive_verdict("[BLT20] Lemma 5.1", [by_construction]).verdict == "tight"


def test_a_refutation_beside_a_holding_theorem_row_is_two_verdicts() -> None:
    found = ledger.derive_verdict("[BLT20] Lemma 5.1", [_row("theorem", 0.5), _row("counterexample", 1.4,
                                                                                   worst_case="00ff")])
    assert found.verdict == "refuted"
    assert any("two verdicts" in p for p in found.problems)


def test_one_refutation_counted_twice_is_a_problem() -> None:
    rows = [_row("counterexample", 1.4, worst_case="00ff; search"), _row("counterexample", 1.2, worst_case="00ff")]
    found = ledger.derive_verdict("[BLT20] Lemma 5.1", rows)
    assert any("counted once" in p for p in found.problems)
    assert any("witness counted twice" in p for p in found.problems)


def test_a_failing_counted_row_is_a_problem() -> None:
    found = ledger.derive_verdict("[BLT20] Lemma 5.1", [_row("theorem", 1.3, holds=False)])
    assert any("fails" in p for p in found.problems)


def test_declared_and_found_verdicts_must_agree() -> None:
    assert ledger.agrees("holds", "holds") and ledger.agrees("untestable", "observed")
    assert not ledger.agrees("holds", "tight") and not ledger.agrees("refuted", "holds")
    assert not ledger.agrees("untestable", "holds")


def test_the_verdict_line_says_room_witness_and_evidence() -> None:
    e = ledger.entry("[BLT20] Lemma 5.1")
    found = ledger.derive_verdict(e.id, [_row("theorem", 0.5, worst_case="f = 00ff (s = 2); exhaustive")])
    line = ledger.verdict_line(e, found)
    assert line.startswith("holds, room ×2") and "f = 00ff (s = 2)" in line and "exhaustive" not in line.split("·")[1]


# --- the pages ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("page", PAGES)
def test_every_entry_box_is_on_its_page(page: str) -> None:
    labels = boxes(page)
    missing = [(e.id, e.box) for e in ledger.entries() if e.page == page and e.box and e.box not in labels]
    assert not missing, f"{page}: boxes named by the ledger but not on the page: {missing}"


@pytest.mark.parametrize("page", PAGES)
def test_a_verdict_line_sits_directly_under_every_box_the_ledger_names(page: str) -> None:
    cells = notebook_markdown(page)
    problems = []
    for label, (cell, end) in boxes(page).items():
        named = [e.id for e in ledger.entries() if e.page == page and e.box == label and e.is_claim]
        if not named:
            continue
        after = cells[cell][end:]
        if not after.strip() and cell + 1 < len(cells):
            after = cells[cell + 1]
        m = VERDICT.match(after.lstrip())
        shown = [] if m is None else [part.strip() for part in m.group("ids").split(";")]
        if sorted(shown) != sorted(named):
            problems.append(f"{label}: verdict line names {shown}, the ledger {named}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_verdict_lines_name_ledger_entries(page: str) -> None:
    known = ledger.by_id()
    for text in notebook_markdown(page):
        for m in VERDICT.finditer(text):
            for part in m.group("ids").split(";"):
                assert part.strip() in known, f"{page}: {part.strip()!r} is not a ledger id"


# --- the blueprint --------------------------------------------------------------------------------------

def test_blueprint_draws_a_node_per_entry_and_an_arrow_per_use() -> None:
    items = ledger.paper_entries("BLT20")
    svg = blueprint.svg(items, href=lambda e: f"#{e.anchor}", title=lambda e: e.id)
    assert svg.count('class="bp-node"') == len(items)
    assert svg.count('class="bp-edge"') == sum(len([u for u in e.uses if u.startswith("[BLT20]")]) for e in items)
    nodes, width, height = blueprint.layout(items)
    for e in items:  # every arrow points down: a result sits below what its proof uses
        for used in e.uses:
            if used in nodes:
                assert nodes[used].layer < nodes[e.id].layer
    boxes_ = [(n.layer, n.x, n.x + n.width) for n in nodes.values()]
    for i, (layer, a0, a1) in enumerate(boxes_):  # no two nodes of a layer overlap
        for layer2, b0, b1 in boxes_[i + 1:]:
            assert layer != layer2 or a1 <= b0 or b1 <= a0
    assert all(0 <= n.x and n.x + n.width <= width for n in nodes.values()) and height > 0


def test_room_text_reads_as_a_number() -> None:
    assert ledger._room_text(2.0) == "2" and ledger._room_text(12.2) == "12"
    assert ledger._room_text(1.2e5) == "1.2·10^5" and not math.isnan(float(ledger._room_text(1.5)))


# --- one citation style ---------------------------------------------------------------------------------

OTHER_STYLES = re.compile(r"\b(?:the )?paper(?:'s|’s)? (?:Lemma|Theorem|Fact|Corollary|Proposition|Definition|Claim|"
                          r"Conjecture|Algorithm)s?\b|\b(?:BLT|BGLT|BDM|MGBH) (?:Lemma|Theorem|Fact|Corollary)\b")


@pytest.mark.parametrize("page", PAGES)
def test_papers_are_cited_in_one_style_and_boxes_take_no_book_number(page: str) -> None:
    """"[BLT20] Lemma 5.1" everywhere, never "paper Lemma 5.1" or "BLT Lemma 5.1"; boxes are unnumbered,
    so a book box never shows a number that is a different statement's number in the paper."""
    problems = []
    for text in notebook_markdown(page):
        problems += [f"other citation style: {m.group()!r}" for m in OTHER_STYLES.finditer(text)]
        for m in BOX.finditer(text):
            if ":nonumber:" not in m.group("options"):
                problems.append(f"numbered box: {text[m.start():m.end()].splitlines()[0]!r}")
    assert not problems, "\n".join(problems)


# --- prose that states a verdict -------------------------------------------------------------------------

REFUTED_WORDS = re.compile(r"^\W{0,3}(?:as printed,? )?(?:is|are|was) (?:refuted|false|violated)|^\W{0,3}does not hold|"
                           r"^\W{0,3}fails\b")
HOLDS_WORDS = re.compile(r"^\W{0,3}(?:holds|is tight|is attained)\b")


def stated_verdicts(text: str) -> list[tuple[str, str]]:
    """(entry id, 'refuted' or 'holds') for each sentence of ``text`` that names a ledger entry and
    says right after it that it is refuted (false, violated, fails) or that it holds (is tight)."""
    ids = sorted(ledger.by_id(), key=len, reverse=True)
    found = []
    plain = re.sub(r"\{prf:ref\}`([^`<]*?)\s*<[^>]*>`", r"\1", text)
    for entry_id in ids:
        for m in re.finditer(re.escape(entry_id) + r"(?![\w.])", plain):
            longer = [i for i in ids if len(i) > len(entry_id) and plain.startswith(i, m.start())]
            if longer:
                continue
            after = plain[m.end():m.end() + 40]
            if REFUTED_WORDS.search(after):
                found.append((entry_id, "refuted"))
            elif HOLDS_WORDS.search(after):
                found.append((entry_id, "holds"))
    return found


def test_stated_verdicts_are_read_from_prose() -> None:
    text = ("[BLT20] Lemma 5.1 holds on every function. As printed, [BLT20] Lemma 5.3 is refuted. "
            "{prf:ref}`[BLT20] Lemma 5.2 <lem-blt-5-2>` fails at 00ff.")
    assert stated_verdicts(text) == [("[BLT20] Lemma 5.1", "holds"), ("[BLT20] Lemma 5.2", "refuted"),
                                     ("[BLT20] Lemma 5.3", "refuted")] or sorted(stated_verdicts(text)) == sorted(
        [("[BLT20] Lemma 5.1", "holds"), ("[BLT20] Lemma 5.3", "refuted"), ("[BLT20] Lemma 5.2", "refuted")])


@pytest.mark.parametrize("page", PAGES)
def test_prose_states_no_verdict_the_ledger_does_not_hold(page: str) -> None:
    problems = []
    for text in notebook_markdown(page):
        for entry_id, said in stated_verdicts(text):
            declared = ledger.entry(entry_id).verdict
            if (said == "refuted") != (declared == "refuted"):
                problems.append(f"the page says {entry_id} {said}; the ledger says {declared}")
    assert not problems, "\n".join(problems)
