"""The ledger: one entry per printed statement the book treats, and one verdict for each.

The entries live in one TOML file per paper beside this module (``blt20.toml``, ``bglt20.toml``,
``blt21.toml``, ``mgbh26.toml``, ``bdm20.toml``, ``related.toml`` for OSSS and Kearns–Mansour); a page that
checks several papers' statements lists its rows in ``links_<page>.toml`` (``[[link]]``: ``entry``,
``results``). An entry records

- ``id``: the citation, in the book's one style, ``"[BLT20] Lemma 5.1"`` (paper key, then the paper's
  own number); ``kind`` (definition, algorithm, lemma, fact, proposition, theorem, conjecture);
- ``statement``: the claim in our words; ``hypotheses``: each premise the printed statement makes;
  ``quantifies``: the class it speaks of; ``uses``: the entries its proof rests on (the paper's own
  proof structure);
- ``box`` and ``page``: the book box that restates it and the page it is on;
- ``verdict``: one of :data:`VERDICTS`; ``evidence``: how the verdict was reached (exhaustive over a
  class, a named search, a counterexample with every hypothesis checked); ``needs`` (untestable: the
  size it would need) or ``why`` (not reproduced);
- ``results``: the verification rows that carry it, as ``"<page stem>: <row result>"``.

Verification rows name their entry through ``results`` (:func:`entry_for_row`), so every row of every
page resolves to one entry; :func:`derive_verdict` reads the rows of an entry and says which verdict
they support, and the tests fail when it differs from the declared one, when two rows of one entry
disagree, or when a refutation is counted twice. The book renders the ledger three ways (the Sphinx
extension ``scripts/ledger_pages.py``): a one-line verdict under each box, a dependency graph per paper
(a blueprint, nodes coloured by verdict) and the page "The five papers at a glance".
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: The verdicts, in the order the glance page counts them.
VERDICTS = ("tight", "holds", "refuted", "untestable", "not reproduced", "implemented", "open")
#: What a reader reads for each verdict.
VERDICT_TEXT = {
    "tight": "tight",
    "holds": "holds",
    "refuted": "refuted",
    "untestable": "untestable here",
    "not reproduced": "not reproduced",
    "implemented": "implemented",
    "open": "open (a conjecture)",
}
#: Okabe–Ito colours (safe for the common colour-vision deficiencies), one per verdict.
VERDICT_COLOURS = {
    "tight": "#0072B2",
    "holds": "#009E73",
    "refuted": "#D55E00",
    "untestable": "#999999",
    "not reproduced": "#E69F00",
    "implemented": "#FFFFFF",
    "open": "#CC79A7",
}
KINDS = ("definition", "algorithm", "lemma", "fact", "claim", "corollary", "proposition", "theorem", "remark",
         "conjecture")
#: Statements that claim something (a definition or an algorithm claims nothing).
CLAIM_KINDS = ("lemma", "fact", "claim", "corollary", "proposition", "theorem", "remark")
PAPERS = {
    "BLT20": ("blt20", "Blanc, Lange, Tan. Top-down induction of decision trees: rigorous guarantees and "
                       "inherent limitations (ITCS 2020)"),
    "BGLT20": ("bglt20", "Blanc, Gupta, Lange, Tan. Estimating decision tree learnability with "
                         "polylogarithmic sample complexity (NeurIPS 2020)"),
    "BLT21": ("blt21", "Blanc, Lange, Tan. Learning stochastic decision trees (ICALP 2021)"),
    "MGBH26": ("mgbh26", "Moakhar, Ghahremani, Banihashem, Hajiaghayi. Decision tree learning on product "
                         "spaces (2026)"),
    "BDM20": ("bdm20", "Brutzkus, Daniely, Malach. ID3 learns juntas for smoothed product distributions "
                       "(COLT 2020)"),
    "OSSS05": ("related", "O'Donnell, Saks, Schramm, Servedio. Every decision tree has an influential variable "
                          "(FOCS 2005)"),
    "KM96": ("related", "Kearns, Mansour. On the boosting ability of top-down decision tree learning "
                        "algorithms (STOC 1996)"),
    "K96": ("related", "Kearns. Boosting theory towards practice: recent developments in decision tree induction "
                       "and the weak learning framework (AAAI 1996)"),
}
ID_PATTERN = re.compile(r"^\[(?P<paper>[A-Z]+\d\d)\] (?P<number>.+)$")


@dataclass(frozen=True)
class Entry:
    """One printed statement (or definition, or algorithm) and the book's verdict on it."""

    id: str
    kind: str
    statement: str
    verdict: str
    box: str = ""
    page: str = ""
    hypotheses: tuple[str, ...] = ()
    quantifies: str = ""
    uses: tuple[str, ...] = ()
    evidence: str = ""
    needs: str = ""
    why: str = ""
    witness: str = ""
    remark: str = ""
    variant_of: str = ""
    results: tuple[str, ...] = ()

    @property
    def paper(self) -> str:
        return ID_PATTERN.match(self.id).group("paper")

    @property
    def number(self) -> str:
        return ID_PATTERN.match(self.id).group("number")

    @property
    def anchor(self) -> str:
        """The HTML id of this entry's row on the glance page and of its node in the blueprint."""
        return "ledger-" + re.sub(r"[^a-z0-9]+", "-", self.id.lower()).strip("-")

    @property
    def is_claim(self) -> bool:
        return self.kind in CLAIM_KINDS


def _check_entry(raw: Mapping[str, object], source: str) -> Entry:
    known = set(Entry.__dataclass_fields__)
    unknown = set(raw) - known
    if unknown:
        raise ValueError(f"{source}: entry {raw.get('id')!r} has unknown fields {sorted(unknown)}")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}
    entry = Entry(**values)  # type: ignore[arg-type]
    match = ID_PATTERN.match(entry.id)
    if match is None or match.group("paper") not in PAPERS:
        raise ValueError(f"{source}: id must read '[PAPER] Number' with PAPER in {sorted(PAPERS)}, got {entry.id!r}")
    if entry.kind not in KINDS:
        raise ValueError(f"{source}: {entry.id}: kind must be one of {KINDS}, got {entry.kind!r}")
    if entry.verdict not in VERDICTS:
        raise ValueError(f"{source}: {entry.id}: verdict must be one of {VERDICTS}, got {entry.verdict!r}")
    if entry.is_claim and entry.verdict in ("implemented", "open"):
        raise ValueError(f"{source}: {entry.id}: a {entry.kind} gets a verdict on its claim, not {entry.verdict!r}")
    if not entry.is_claim and entry.verdict not in ("implemented", "open"):
        raise ValueError(f"{source}: {entry.id}: a {entry.kind} claims nothing; its verdict is 'implemented' "
                         f"(or 'open' for a conjecture), got {entry.verdict!r}")
    if entry.verdict == "untestable" and not entry.needs:
        raise ValueError(f"{source}: {entry.id}: an untestable entry says what it needs (needs=)")
    if entry.verdict == "not reproduced" and not entry.why:
        raise ValueError(f"{source}: {entry.id}: a not-reproduced entry says why (why=)")
    if entry.verdict == "refuted" and not entry.witness:
        raise ValueError(f"{source}: {entry.id}: a refuted entry names its witness (witness=)")
    if entry.is_claim and not entry.hypotheses and entry.verdict == "refuted":
        raise ValueError(f"{source}: {entry.id}: a refuted entry lists the printed statement's hypotheses")
    return entry


@cache
def entries() -> tuple[Entry, ...]:
    """Every entry of every paper's file, in file order (papers in :data:`PAPERS` order)."""
    out: list[Entry] = []
    for stem in dict.fromkeys(stem for stem, _ in PAPERS.values()):
        path = HERE / f"{stem}.toml"
        if not path.is_file():
            continue
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        out.extend(_check_entry(raw, path.name) for raw in data.get("entry", []))
    out = _with_links(out)
    ids = [e.id for e in out]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ValueError(f"ledger: ids listed twice: {repeated}")
    known = set(ids)
    for e in out:
        missing = [u for u in (*e.uses, *([e.variant_of] if e.variant_of else [])) if u not in known]
        if missing:
            raise ValueError(f"ledger: {e.id} uses entries that are not in the ledger: {missing}")
    _check_acyclic(out)
    aliases: dict[str, str] = {}
    for e in out:
        for alias in e.results:
            if alias in aliases:
                raise ValueError(f"ledger: row {alias!r} is listed under {aliases[alias]} and {e.id}")
            aliases[alias] = e.id
    return tuple(out)


def _with_links(items: list[Entry]) -> list[Entry]:
    """Add the rows that another page lists for an entry (``links_<page>.toml``: ``[[link]]`` tables of
    ``entry`` and ``results``), so that a page checking several papers' statements (every function on
    four variables, the real data) keeps its rows in one file beside the papers' own."""
    from dataclasses import replace

    extra: dict[str, list[str]] = {}
    for path in sorted(HERE.glob("links_*.toml")):
        for link in tomllib.loads(path.read_text(encoding="utf-8")).get("link", []):
            unknown = set(link) - {"entry", "results"}
            if unknown or "entry" not in link:
                raise ValueError(f"{path.name}: a link has 'entry' and 'results' only, got {sorted(link)}")
            extra.setdefault(link["entry"], []).extend(link.get("results", []))
    known = {e.id for e in items}
    missing = sorted(set(extra) - known)
    if missing:
        raise ValueError(f"ledger: links name entries that are not in the ledger: {missing}")
    return [replace(e, results=e.results + tuple(extra.get(e.id, ()))) for e in items]


def _check_acyclic(items: Sequence[Entry]) -> None:
    uses = {e.id: e.uses for e in items}
    state: dict[str, int] = {}

    def visit(node: str, path: tuple[str, ...]) -> None:
        if state.get(node) == 2:
            return
        if state.get(node) == 1:
            raise ValueError(f"ledger: the proof dependencies form a cycle: {' -> '.join(path + (node,))}")
        state[node] = 1
        for used in uses[node]:
            visit(used, path + (node,))
        state[node] = 2

    for node in uses:
        visit(node, ())


def by_id() -> dict[str, Entry]:
    return {e.id: e for e in entries()}


def entry(entry_id: str) -> Entry:
    """The entry with this id; a ``ValueError`` naming the id when there is none."""
    table = by_id()
    if entry_id not in table:
        raise ValueError(f"ledger entry must be one of the ledger's ids, got {entry_id!r}")
    return table[entry_id]


def paper_entries(paper: str) -> list[Entry]:
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)}, got {paper!r}")
    return [e for e in entries() if e.paper == paper]


def covered_pages() -> set[str]:
    """The pages whose rows the ledger lists (every row of such a page must name an entry)."""
    return {alias.split(": ", 1)[0] for e in entries() for alias in e.results}


def row_key(page: str, result: object) -> str:
    return f"{page}: {result}"


def entry_for_row(page: str, result: object) -> str:
    """The id of the entry a verification row of ``page`` with this ``result`` belongs to."""
    key = row_key(page, result)
    for e in entries():
        if key in e.results:
            return e.id
    raise ValueError(f"verification row {key!r} names no ledger entry: add it to the 'results' of the entry "
                     f"it checks in dtbook/ledger/*.toml")


def dependents(entry_id: str) -> list[str]:
    """Every entry whose proof rests, directly or through others, on ``entry_id``."""
    users: dict[str, list[str]] = {}
    for e in entries():
        for used in e.uses:
            users.setdefault(used, []).append(e.id)
    seen: list[str] = []
    stack = list(users.get(entry_id, []))
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.append(node)
            stack.extend(users.get(node, []))
    return seen


def resting_on(entry_id: str) -> list[str]:
    """The refuted or untestable entries that ``entry_id``'s proof rests on (directly or not)."""
    table = by_id()
    out: list[str] = []
    stack = list(table[entry_id].uses)
    seen: set[str] = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if table[node].verdict in ("refuted", "untestable"):
            out.append(node)
        stack.extend(table[node].uses)
    return sorted(out)


# ------------------------------------------------------------------------------------------------
# Verdicts from rows
# ------------------------------------------------------------------------------------------------


def _num(value: object) -> float:
    try:
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return out


def _clean(value: object) -> str:
    text = "" if value is None else str(value).strip()
    return "" if text.lower() in ("nan", "none") else text


def short_witness(worst_case: object) -> str:
    """The witness part of a row's ``worst_case`` (before the first ';', where the search is described)."""
    return _clean(worst_case).split(";")[0].strip()


def _yes(value: object) -> bool:
    return str(value).strip().lower() in ("true", "1", "yes")


@dataclass
class Finding:
    """What the rows of one entry say: the verdict they support and the row it rests on."""

    entry: str
    verdict: str
    margin: float = math.nan
    witness: str = ""
    rows: list[Mapping[str, object]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def room(self) -> float:
        """How many times the hardest measurement fits under its bound (1 / margin)."""
        return 1.0 / self.margin if self.margin and self.margin > 0 and math.isfinite(self.margin) else math.inf


def derive_verdict(entry_id: str, rows: Iterable[Mapping[str, object]], *, tight_at: float = 1 - 1e-9) -> Finding:
    """The verdict the verification rows of one entry support, and their problems.

    A counted counterexample makes it *refuted*; else counted theorem rows make it *tight* (the
    hardest at its bound, or every row tight by construction) or *holds* (room 1/margin); identities
    alone make a definition or algorithm *implemented*; observations alone support *untestable* or
    *not reproduced* (the ledger says which). Problems: a failing counted row; a refutation beside a
    theorem row that holds; a witness counted twice.
    """
    own = [r for r in rows if str(r.get("ledger")) == entry_id]
    counted = [r for r in own if r.get("kind") in ("theorem", "identity", "counterexample")]
    finding = Finding(entry=entry_id, verdict="", rows=own)
    for r in counted:
        if not _yes(r.get("holds")):
            finding.problems.append(f"{entry_id}: a counted {r.get('kind')} row fails ({r.get('quantity')})")
    refuting = [r for r in counted if r.get("kind") == "counterexample"]
    theorems = [r for r in counted if r.get("kind") == "theorem"]
    if refuting:
        finding.verdict = "refuted"
        if len(refuting) > 1:
            finding.problems.append(f"{entry_id}: {len(refuting)} counted counterexample rows (one refutation is "
                                    "counted once; show the others as observations)")
        if theorems:
            finding.problems.append(f"{entry_id}: refuted by a counterexample and checked as holding by "
                                    f"{len(theorems)} theorem rows (two verdicts for one statement)")
        hardest = max(refuting, key=lambda r: _num(r.get("margin")))
        finding.margin = _num(hardest.get("margin"))
        finding.witness = short_witness(hardest.get("worst_case")) or short_witness(hardest.get("note"))
    elif theorems:
        roomy = [r for r in theorems if not _clean(r.get("tight"))]
        pool = roomy or theorems
        hardest = max(pool, key=lambda r: -1.0 if math.isnan(_num(r.get("margin"))) else _num(r.get("margin")))
        finding.margin = _num(hardest.get("margin"))
        finding.witness = short_witness(hardest.get("worst_case"))
        finding.verdict = "tight" if (not roomy or finding.margin >= tight_at) else "holds"
    elif counted:
        # identities alone: a definition or algorithm is implemented; a claim that is an exact equality
        # ("a split spends exactly its score") is checked by two independent computations: tight
        finding.verdict = "tight" if _claims(entry_id) else "implemented"
    elif own:
        finding.verdict = "observed"
    else:
        finding.verdict = "no rows"
    witnesses = [short_witness(r.get("worst_case")) for r in refuting if short_witness(r.get("worst_case"))]
    if len(set(witnesses)) < len(witnesses):
        finding.problems.append(f"{entry_id}: one witness counted twice")
    return finding


def _claims(entry_id: str) -> bool:
    known = by_id()
    return entry_id in known and known[entry_id].is_claim


def agrees(declared: str, found: str) -> bool:
    """Whether a declared verdict is the one the rows support (an identity beside an untestable or
    not-reproduced claim checks a step of it, not the claim)."""
    if declared in ("untestable", "not reproduced", "open"):
        return found in ("observed", "no rows", "implemented", "tight")
    if declared == "implemented":
        return found in ("implemented", "no rows", "observed")
    return declared == found


def verdict_line(e: Entry, finding: Finding | None) -> str:
    """The one line under a box: verdict, margin or room, witness and the kind of evidence (plain text)."""
    verdict = VERDICT_TEXT[e.verdict]
    parts = [verdict]
    if finding is not None and e.verdict == "holds" and math.isfinite(finding.room):
        parts[0] = f"holds, room ×{_room_text(finding.room)}"
    if e.verdict == "tight" and (finding is not None and finding.witness or e.witness):
        parts[0] = f"tight at {e.witness or finding.witness}"
    elif e.verdict == "refuted":
        parts[0] = f"refuted at {e.witness}"
    elif finding is not None and finding.witness and e.verdict == "holds":
        parts.append(f"worst case at {finding.witness}")
    if e.evidence:
        parts.append(e.evidence)
    if e.verdict == "untestable":
        parts.append(f"needs {e.needs}")
    if e.verdict == "not reproduced":
        parts.append(e.why)
    rests = resting_on(e.id) if e.is_claim else []
    if rests:
        parts.append("its proof rests on " + ", ".join(rests))
    return " · ".join(p for p in parts if p)


def _room_text(room: float) -> str:
    if room >= 1000:
        exponent = int(math.floor(math.log10(room)))
        return f"{room / 10**exponent:.1f}·10^{exponent}"
    if room >= 10:
        return f"{room:.0f}"
    return f"{room:.2f}".rstrip("0").rstrip(".")
