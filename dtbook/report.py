"""The verification table that closes every chapter: each row is a check of a stated kind.

Kinds (issue 23): what could make a row fail
--------------------------------------------

``theorem`` (:meth:`VerificationTable.theorem`)
    a claim printed in a paper, ``measured <relation> bound``, with the bound computed
    independently of the measurement. The row states

    - ``reach=(low, high)``: the values the measured quantity can really take at these parameters
      (a label count of LocalLearner reaches ``b * 2**(D+1)``, not the bound's own formula). A bound
      that every reachable value satisfies is refused with a ``ValueError`` (record it as an
      observation), and a measurement outside the reach fails the row. An infinite end on the side
      where the check can fail (the high end for ``<=``, the low end for ``>=``) needs
      ``reach_why=``, one sentence on why nothing smaller is known;
    - ``measured_by=`` and ``bound_by=``: the functions that computed each side (names, callables
      or sequences of them). If the two sides share a function, a fault in it moves both sides
      together and the row is refused;
    - optionally ``worst_case=``: where in the theorem's class the measured value was found
      ("α = 0.1, c = 0.05, outer member; 40 restarts + local search"), shown in the summary;
    - optionally ``tight_by_construction=``: why every passing value sits at the bound (an equality
      claim such as "training error ≤ 0"). Such a row still counts, but is never named as the
      closest call. A bound at the end of the reach (``<=`` at ``low``, ``>=`` at ``high``) is
      flagged so automatically.

    ``reads_rule=`` ("stop rule", "selection rule", "budget rule") declares that the measurement
    re-reads a rule the algorithm itself enforces; such a row is refused as a theorem (record it
    as an identity, if two computations are compared, or as an observation).
``identity`` (:meth:`VerificationTable.identity`)
    the largest deviation between two independent computations of one exact quantity, against a
    stated tolerance; ``computed_by=(first, second)`` names the two computations (refused if they
    share a function). Identities guard the code, not a theorem.
``counterexample`` (:meth:`VerificationTable.counterexample`)
    a statement printed in a paper, shown false on data: the row holds when the data violate it.
``observation`` (:meth:`VerificationTable.observation`)
    everything else (a bound vacuous at any feasible size, a measurement with no theorem behind it,
    a re-read of the algorithm's own rule): shown with ``why=`` (its reason), never counted, never
    asserted.

Theorem checks, identities and counterexamples are *counted*: :meth:`VerificationTable.assert_all`
fails the chapter if one does not hold. :meth:`VerificationTable.bound` is the pre-issue-23 name of
:meth:`~VerificationTable.theorem` (``value_range=`` for ``reach=``, no provenance); it records a
``theorem`` row flagged ``legacy`` and stays only until every chapter has moved to ``theorem``.

The lint
--------

:func:`lint_table` reads what each row recorded (a table, its DataFrame, or the rows of its CSV or
JSON) and returns one :class:`LintFinding` per escape hatch:

``same-function``  a theorem or identity whose two sides name a common function;
``own-rule``       a theorem row that declares ``reads_rule``;
``wide-reach``     a theorem row whose reach is infinite on the failing side with no ``reach_why``
                   (``(0, inf)`` for a ``<=`` ratio, the old ``value_range`` habit);
``vacuous``        a theorem row whose bound every reachable value satisfies;
``no-provenance``  a theorem row without ``measured_by``/``bound_by``, an identity without
                   ``computed_by`` (rows from :meth:`~VerificationTable.bound` and pre-issue-23
                   identities: ``legacy``);
``no-reason``      an observation without its reason;
``unknown-kind``   a kind outside :data:`KINDS` (``bound`` in an old CSV).

The row methods refuse a new row that the lint would flag (``ValueError``), except ``legacy`` rows;
:meth:`VerificationTable.assert_all` re-runs the lint, and with ``allow_legacy=False`` fails on
legacy rows too. Not detectable from a row, and left to the chapter's author: a claim that holds by
algebra for every input, and a reach wider than the quantity's real one.

Margins: one convention
-----------------------

Every counted row has a *margin*, how much of the bound the measurement used: **1 is at the
bound, above 1 fails**. For a theorem row with reach starting at ``low`` (0 when unbounded), it is

- ``(measured - low) / (bound - low)`` for ``measured <= bound`` (``measured / bound`` for the
  usual non-negative quantity), and
- ``(bound - low) / (measured - low)`` for ``measured >= bound`` (``bound / measured``);

a value within ``tolerance`` of the bound has margin 1. For an identity it is
``deviation / tolerance`` (0 for an exact agreement). A counterexample carries the margin of the
claim it refutes (above 1: refuted). An observation with a bound carries the same ratio, for
information. :func:`format_margin` is the one way the book prints a margin::

    margin            theorem                  identity           counterexample, observation
    nan               —                        —                  —
    0                 0                        exact              0
    (0, 0.001)        < 0.001                  < 0.001            < 0.001
    [0.001, 1)        0.42 (3 digits, never 1) 0.42               0.42
    1                 at the bound             at the tolerance   at the bound
    tight row         tight by construction
    above 1           1.25 (fails)             1.25 (fails)       1.25
    above 1000        2.1·10^4 (fails)         2.1·10^4 (fails)   2.1·10^4
    inf               fails (no room)          fails (no room)    beyond the bound

For example, Theorem 1 measured at excess error 0.012 against ε = 0.05 has margin 0.24 and
prints ``0.24``; 0.05 against 0.05 prints ``at the bound``; 0.06 prints ``1.2 (fails)``.

Rendering
---------

:meth:`VerificationTable.summary` returns a :class:`TableSummary`: per paper result, its theorem
checks (result, where the worst case was found, margin coloured by room), then the counts of
identities, counterexamples and observations, the closest call (:meth:`closest_theorem_check`),
and the full table (:meth:`to_markdown`) in a collapsed MyST ``{dropdown}``. A ``box`` given as a
book label (``thm-bglt-1``) is rendered as a ``{prf:ref}`` link, never as text; the book renders
Markdown outputs as MyST (``nb_render_markdown_format: myst`` in ``_config.yml``).
"""

from __future__ import annotations

import html
import json
import math
import os
import pathlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
import pandas as pd

KINDS = ("theorem", "identity", "counterexample", "observation")
COUNTED_KINDS = ("theorem", "identity", "counterexample")
#: The name used before issue 23 (the fault runner and old code read it).
VERIFIED_KINDS = COUNTED_KINDS
COLUMNS = ["kind", "result", "box", "quantity", "measured", "relation", "bound", "tolerance", "reach",
           "reach_low", "reach_high", "margin", "holds", "status", "worst_case", "measured_by", "bound_by",
           "reads_rule", "reach_why", "tight", "legacy", "note", "ledger", "fails_under", "fails_under_value",
           "fails_under_fails"]
# The environment variables through which a runner (dtbook.run) asks for the table as JSON, and
# (the fault-injection suite) for the chapter to stop at its first failing check.
VERIFICATION_JSON_ENV = "DTCORE_VERIFICATION_JSON"
STOP_EARLY_ENV = "DTCORE_VERIFICATION_STOP_EARLY"
#: What :func:`lint_table` looks for, with the sentence it prints.
LINT_PATTERNS = {
    "same-function": "both sides are computed by the same function, so a fault in it moves both together",
    "own-rule": "the row re-reads a rule the algorithm itself enforces, so it cannot fail on correct or "
                "faulty code alike; record it as an identity or an observation",
    "wide-reach": "the reach is infinite on the side where the check can fail, so no bound can be vacuous; "
                  "state the quantity's real reach, or say in reach_why why none is known",
    "vacuous": "every reachable value satisfies the bound; record it as an observation",
    "no-provenance": "the row does not name the functions that computed its two sides",
    "no-reason": "an observation must say why it is not a check",
    "unknown-kind": "the kind is not one of " + ", ".join(KINDS),
    "no-power": "a theorem row must name a worse output under which it fails (fails_under=(name, value)), "
                "and that output's value must violate the bound; otherwise the row shows nothing",
}
#: Findings that a new row may carry while its chapter has not yet named every row's worse output;
#: :meth:`VerificationTable.assert_all` fails on them unless ``allow_no_power=True``.
POWER_PATTERNS = ("no-power",)
#: Margin bands of the summary, as (upper end of the band, name, colour); "tight" has < 10% room.
# Okabe–Ito hues, darkened for text on white (no red/green pair: the words say the band too).
ROOM_BANDS = ((0.5, "ample", "#0072B2"), (0.9, "some", "#5E3C99"), (1.0, "tight", "#A65E00"),
              (math.inf, "fails", "#C0392B"))
ROOM_KEY = {"ample": "margin below 0.5 (room ×2 or more)", "some": "0.5 to 0.9", "tight": "0.9 to 1, or at the bound",
            "fails": "above 1: the check fails"}
BY_CONSTRUCTION_COLOUR = "#666666"
# A book box label as sphinx-proof wants it (thm-bglt-1, lem-blt-5-2, def-blt-selector).
_BOX_LABEL = re.compile(r"^[a-z]+(?:-[a-z0-9]+)+$")
_PROOF_TYPES = {"thm": "Theorem", "lem": "Lemma", "cor": "Corollary", "def": "Definition", "alg": "Algorithm",
                "prop": "Proposition", "conj": "Conjecture", "rem": "Remark", "ex": "Example", "obs": "Observation"}

Provenance = Union[str, Callable[..., Any], Sequence[Union[str, Callable[..., Any]]], None]


# --------------------------------------------------------------------------------------------
# Numbers and margins
# --------------------------------------------------------------------------------------------


def _finite_or_none(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _as_float(value: object, missing: float = math.nan) -> float:
    """A float from a row's cell, whatever wrote it (None for JSON's inf, strings from a CSV)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return missing
    try:
        return float(value)
    except (TypeError, ValueError):
        return missing


def _truthy(value: object) -> bool:
    return str(value).strip().lower() in ("true", "1", "1.0") if isinstance(value, str) else bool(value)


def _text(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def theorem_margin(measured: float, bound: float, relation: str, origin: float = 0.0) -> float:
    """How much of the bound ``measured <relation> bound`` used: 1 at the bound, above 1 beyond it.

    Both sides are counted from ``origin`` (the low end of the quantity's reach, 0 when it is
    unbounded): ``measured / bound`` for ``<=``, ``bound / measured`` for ``>=``. A bound at the
    origin gives 1 when the measurement equals it and ``inf`` when it is beyond; a measurement on
    the safe side of the origin gives 0. ``nan`` when either side is ``nan``, or when the bound lies
    below an origin of 0 on an unbounded reach (no ratio means anything there).
    """
    relation = _check_relation(relation)
    m, b = float(measured) - origin, float(bound) - origin
    if math.isnan(m) or math.isnan(b):
        return math.nan
    if b < 0:
        return math.nan
    used, room = (m, b) if relation == "<=" else (b, m)
    if room > 0:
        return max(used, 0.0) / room
    if used == room:
        return 1.0
    return math.inf if used > room else 0.0


def identity_margin(deviation: float, tolerance: float) -> float:
    """``deviation / tolerance``; with a zero tolerance, 0 for an exact agreement and ``inf`` otherwise."""
    dev, tol = float(deviation), float(tolerance)
    if math.isnan(dev) or math.isnan(tol):
        return math.nan
    if tol > 0:
        return dev / tol
    return 0.0 if dev == 0 else math.inf


def format_margin(margin: float | None, kind: str = "theorem", *, tight: bool = False) -> str:
    """The book's one rendering of a margin (table in the module docstring): never "inf" or "1e-51".

    ``kind`` is the row's kind (theorem, identity, counterexample, observation); ``tight`` marks a
    theorem row that sits at its bound by construction.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    m = _as_float(margin)
    if math.isnan(m):
        return "—"
    counted_failure = kind in ("theorem", "identity")
    if math.isinf(m):
        return "fails (no room)" if counted_failure else "beyond the bound"
    if tight and kind == "theorem" and m <= 1:
        return "tight by construction"
    if m <= 0:
        return "exact" if kind == "identity" else "0"
    if m < 1e-3:
        return "< 0.001"
    if m < 1:
        text = f"{m:.3g}"
        return "> 0.999" if float(text) >= 1 else text
    if m == 1:
        return "at the tolerance" if kind == "identity" else "at the bound"
    if m <= 1000:
        text = f"{m:.3g}"
    else:
        mantissa, exponent = f"{m:.1e}".split("e")
        text = f"{mantissa.rstrip('0').rstrip('.')}·10^{int(exponent)}"
    if text == "1":  # above 1 by less than the printed precision
        text = "> 1"
    return f"{text} (fails)" if counted_failure else text


def room_band(margin: float | None, *, tight: bool = False) -> tuple[str, str]:
    """The summary's band of a margin, as (name, colour): ample < 0.5 ≤ some < 0.9 ≤ tight ≤ 1 < fails."""
    m = _as_float(margin)
    if tight and not m > 1:
        return "by construction", BY_CONSTRUCTION_COLOUR
    if math.isnan(m):
        return "none", BY_CONSTRUCTION_COLOUR
    for upper, name, colour in ROOM_BANDS:
        if m < upper or (name == "tight" and m == upper):
            return name, colour
    return ROOM_BANDS[-1][1], ROOM_BANDS[-1][2]


def _check_relation(relation: str) -> str:
    if relation not in ("<=", ">="):
        raise ValueError(f"relation must be '<=' or '>=', got {relation!r}")
    return relation


def _check_range(value_range: tuple[float, float], name: str = "reach") -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in value_range)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (low, high), got {value_range!r}") from None
    if not lo < hi:
        raise ValueError(f"{name} must satisfy low < high, got {value_range!r}")
    return lo, hi


def format_number(value: object, tolerance: float | None = None) -> str:
    """A short, readable rendering: integers as integers, others to 4 significant digits.

    Values smaller in size than ``tolerance`` are shown as 0 (they are rounding noise at the
    precision the check works at); NaN and infinities are spelled out.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, str):
        return value
    v = float(value)
    if math.isnan(v):
        return "—"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if tolerance is not None and tolerance > 0 and abs(v) < tolerance:
        return "0"
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}".replace(",", "\u2009")
    if abs(v) >= 1e5 or abs(v) < 1e-3:
        mant, exp = f"{v:.3e}".split("e")
        return f"{mant.rstrip('0').rstrip('.')}·10^{int(exp)}"
    return f"{v:.4g}"


def _reach_text(lo: float, hi: float) -> str:
    return f"{'(' if math.isinf(lo) else '['}{format_number(lo)}, {format_number(hi)}{')' if math.isinf(hi) else ']'}"


# --------------------------------------------------------------------------------------------
# Provenance and the lint
# --------------------------------------------------------------------------------------------


def provenance_names(value: Provenance) -> tuple[str, ...]:
    """The function names a row's ``measured_by``/``bound_by`` declares, in order, without blanks.

    A callable gives ``module.qualname``; a string is split on commas (the CSV keeps the names as
    ``"a, b"``). ``functools.partial`` objects give the name of the function they wrap.
    """
    if value is None:
        return ()
    if isinstance(value, float) and math.isnan(value):
        return ()
    items = [value] if isinstance(value, str) or callable(value) else list(value)
    names: list[str] = []
    for item in items:
        if callable(item) and not isinstance(item, str):
            func = getattr(item, "func", item)  # functools.partial
            module = getattr(func, "__module__", "") or ""
            qualname = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
            names.append(f"{module}.{qualname}" if module else qualname)
        elif isinstance(item, str):
            names += [part.strip() for part in item.split(",") if part.strip()]
        else:
            raise ValueError(f"provenance must name functions (strings or callables), got {item!r}")
    return tuple(names)


def _same_function(a: str, b: str) -> bool:
    """Two names of one function: equal, or one a dotted suffix of the other (``f`` and ``mod.f``)."""
    pa, pb = a.replace("()", "").split("."), b.replace("()", "").split(".")
    short, long = (pa, pb) if len(pa) <= len(pb) else (pb, pa)
    return long[len(long) - len(short):] == short


def shared_functions(first: Provenance, second: Provenance) -> list[str]:
    """Names that the two sides of a row share (see :func:`_same_function`)."""
    names_a, names_b = provenance_names(first), provenance_names(second)
    return [a for a in names_a if any(_same_function(a, b) for b in names_b)]


@dataclass(frozen=True)
class LintFinding:
    """One escape hatch found in a verification row."""

    row: int
    result: str
    quantity: str
    pattern: str
    message: str
    legacy: bool = False

    def __str__(self) -> str:
        tag = " [legacy row]" if self.legacy else ""
        return f"row {self.row} ({self.result}: {self.quantity}): {self.pattern}{tag}: {self.message}"


def _row_findings(row: Mapping[str, object], index: int) -> list[LintFinding]:
    kind = _text(row.get("kind"))
    legacy = _truthy(row.get("legacy", False))
    found: list[LintFinding] = []

    def flag(pattern: str, detail: str = "") -> None:
        message = LINT_PATTERNS[pattern] + (f" ({detail})" if detail else "")
        found.append(LintFinding(index, _text(row.get("result")), _text(row.get("quantity")), pattern, message,
                                 legacy))

    if kind not in KINDS:
        flag("unknown-kind", f"got {kind!r}" + ("; 'bound' rows are theorem rows now" if kind == "bound" else ""))
        return found
    if kind == "observation":
        if not _text(row.get("note")).strip():
            flag("no-reason")
        return found
    if kind not in ("theorem", "identity"):
        return found
    measured_by, bound_by = _text(row.get("measured_by")), _text(row.get("bound_by"))
    if not provenance_names(measured_by) or not provenance_names(bound_by):
        how = ("give measured_by= and bound_by= (use theorem() instead of bound())" if kind == "theorem"
               else "give computed_by=(first, second)")
        flag("no-provenance", how)
    else:
        shared = shared_functions(measured_by, bound_by)
        if shared:
            flag("same-function", ", ".join(shared))
    if kind == "identity":
        return found
    rule = _text(row.get("reads_rule")).strip()
    if rule:
        flag("own-rule", f"reads the {rule}")
    relation = _text(row.get("relation"))
    lo = _as_float(row.get("reach_low"), -math.inf)
    hi = _as_float(row.get("reach_high"), math.inf)
    failing_end = hi if relation == "<=" else lo
    if math.isinf(failing_end) and not _text(row.get("reach_why")).strip():
        flag("wide-reach", f"reach {_reach_text(lo, hi)} with {relation}")
    b = _as_float(row.get("bound"))
    if relation in ("<=", ">=") and not math.isnan(b) and _vacuous(b, relation, lo, hi):
        flag("vacuous", f"bound {format_number(b)} against reach {_reach_text(lo, hi)}")
    if not _text(row.get("fails_under")).strip():
        flag("no-power", "no worse output named")
    elif not _truthy(row.get("fails_under_fails", False)):
        flag("no-power", f"{_text(row.get('fails_under'))} gives {format_number(_as_float(row.get('fails_under_value')))}, "
                         f"which passes the row too")
    return found


def _vacuous(bound: float, relation: str, lo: float, hi: float) -> bool:
    """Whether every value of ``[lo, hi]`` satisfies ``value <relation> bound``."""
    return (bound >= hi or bound < lo) if relation == "<=" else (bound <= lo or bound > hi)


def lint_table(table: VerificationTable | pd.DataFrame | Iterable[Mapping[str, object]], *,
               power: bool = True) -> list[LintFinding]:
    """Every escape hatch in a verification table (see the module docstring for the patterns).

    ``table`` may be a :class:`VerificationTable`, its :meth:`~VerificationTable.frame`, or the rows
    of the CSV or JSON a chapter wrote (``pd.read_csv(...)``, :func:`read_verification_json`). An
    empty list means the table is clean. ``power=False`` leaves out the ``no-power`` findings.
    """
    if isinstance(table, VerificationTable):
        rows: list[Mapping[str, object]] = table.rows
    elif isinstance(table, pd.DataFrame):
        rows = table.to_dict("records")
    else:
        rows = list(table)
    found: list[LintFinding] = []
    for index, row in enumerate(rows):
        found += _row_findings(row, index)
    return [f for f in found if power or f.pattern not in POWER_PATTERNS]


def assert_lint_clean(table: VerificationTable | pd.DataFrame | Iterable[Mapping[str, object]], *,
                      allow_legacy: bool = False, allow_no_power: bool = False) -> None:
    """Raise ``AssertionError`` listing every finding of :func:`lint_table` (legacy rows and rows
    without a named worse output aside, if allowed)."""
    found = [f for f in lint_table(table) if not (allow_legacy and f.legacy)
             and not (allow_no_power and f.pattern in POWER_PATTERNS)]
    if found:
        raise AssertionError("the verification table has escape hatches:\n" + "\n".join(map(str, found)))


# --------------------------------------------------------------------------------------------
# Rendering helpers
# --------------------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|$#~])")


def _md(text: object) -> str:
    """Plain text made safe for a MyST table cell (no role, math, emphasis or cell break)."""
    return _MD_SPECIAL.sub(r"\\\1", _text(text)).replace("\n", " ")


def is_box_label(box: str) -> bool:
    """Whether ``box`` is a book label (``thm-bglt-1``) rather than a box's name (``Theorem 2.1``)."""
    return bool(_BOX_LABEL.match(box))


def box_markdown(box: object) -> str:
    """A ``{prf:ref}`` link for a book label, the escaped text otherwise (several separated by ``;``)."""
    parts = [p.strip() for p in re.split(r"[;,]\s*(?=[a-z]+-)", _text(box)) if p.strip()]
    if parts and all(is_box_label(p) for p in parts):
        return ", ".join(f"{{prf:ref}}`{p}`" for p in parts)
    return _md(box)


def _box_html(box: object) -> str:
    """In plain HTML a label cannot be resolved to its number: a link whose text names the box's type."""
    text = _text(box)
    if text and is_box_label(text):
        kind = _PROOF_TYPES.get(text.split("-")[0], "box")
        return f'<a href="#{html.escape(text)}">{kind}</a>'
    return html.escape(text)


def _statement_link(statement: str, box: str) -> str:
    """A statement's name as a link to its box (``{prf:ref}`[BLT20] Lemma 5.1 <lem-blt-5-1>```), or text."""
    if box and is_box_label(box) and "<" not in statement and "`" not in statement:
        return f"{{prf:ref}}`{statement} <{box}>`"
    return _md(statement) + (f" ({box_markdown(box)})" if box else "")


def _witness(worst_case: object) -> str:
    """The witness part of a ``worst_case`` text (before the first ';', where the search is described)."""
    return _text(worst_case).split(";")[0].strip()


def _coloured(text: str, colour: str) -> str:
    return f'<span style="color:{colour};font-weight:600">{text}</span>'


def _pipe_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _relation_text(relation: object) -> str:
    return _text(relation).replace("<=", "≤").replace(">=", "≥")


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


GROUP_TITLES = {
    "theorem": "Theorem checks (a printed claim against a bound computed independently of the measurement)",
    "identity": "Identities (two independent computations of one quantity)",
    "counterexample": "Counterexamples (a printed statement refuted on data)",
    "observation": "Observations (shown, not counted)",
}


# --------------------------------------------------------------------------------------------
# The summary
# --------------------------------------------------------------------------------------------


@dataclass
class TableSummary:
    """What a reader scans at the end of a chapter; displays as MyST Markdown in a notebook.

    ``counts`` by kind, ``failures`` (counted rows that do not hold), ``closest`` (the theorem check
    with the least room, :meth:`VerificationTable.closest_theorem_check`), ``results`` (one entry per
    paper result with theorem checks: its hardest row), ``sentence`` (plain text, for ``glue``) and
    ``markdown`` (the summary and the full table in a collapsed dropdown).
    """

    counts: dict[str, int]
    failures: int
    closest: dict[str, object] | None
    results: list[dict[str, object]]
    sentence: str
    markdown: str

    shown: bool = False

    def __getitem__(self, key: str) -> object:
        # the dictionary close_chapter returned before issue 23 had these keys
        return {"counts": self.counts, "failures": self.failures, "closest": self.closest}[key]

    def mimebundle(self) -> dict[str, str]:
        """Markdown only: MyST-NB prefers text/html to text/markdown, and the ``{prf:ref}`` links need MyST."""
        return {"text/markdown": self.markdown, "text/plain": self.sentence}

    def show(self) -> None:
        """Display the summary in a notebook, once.

        close_chapter shows it, and a closing cell that ends with the call (no semicolon) would
        otherwise show it a second time as the cell's value.
        """
        if self.shown:
            return
        from IPython.display import display
        display(self.mimebundle(), raw=True)
        self.shown = True

    def _ipython_display_(self) -> None:
        self.show()


@dataclass
class VerificationTable:
    """Collects one row per check; :meth:`assert_all` fails the chapter if a counted row fails.

    Use :meth:`theorem`, :meth:`identity`, :meth:`counterexample` and :meth:`observation`
    (:meth:`bound` is the old name of :meth:`theorem`). ``result`` names the paper's result with
    the paper's own number ("[BGLT20] Theorem 1"), ``box`` the book's box that restates it: its
    label (``thm-bglt-1``, rendered as a link) or, in legacy rows, its name ("Theorem 2.1").
    """

    rows: list[dict[str, object]] = field(default_factory=list)

    @classmethod
    def from_records(cls, records: pd.DataFrame | Iterable[Mapping[str, object]]) -> VerificationTable:
        """A table from the rows a chapter wrote (its CSV as a DataFrame, or its JSON), for the lint."""
        rows = records.to_dict("records") if isinstance(records, pd.DataFrame) else [dict(r) for r in records]
        return cls(rows=[{c: row.get(c) for c in COLUMNS} for row in rows])

    def _add(self, row: dict[str, object]) -> bool:
        full = {c: row.get(c) for c in COLUMNS}
        for text_column in ("note", "box", "worst_case", "measured_by", "bound_by", "reads_rule", "reach_why",
                            "tight", "ledger"):
            full[text_column] = _text(full[text_column])
        full["legacy"] = bool(full["legacy"])
        full["fails_under"] = _text(full["fails_under"])
        full["fails_under_fails"] = bool(full["fails_under_fails"]) if full["fails_under_fails"] is not None else False
        findings = [f for f in _row_findings(full, len(self.rows))
                    if not f.legacy and f.pattern not in POWER_PATTERNS]
        if findings:
            raise ValueError("; ".join(str(f) for f in findings))
        self.rows.append(full)
        if os.environ.get(STOP_EARLY_ENV) and full["kind"] in COUNTED_KINDS and not full["holds"]:
            # Under the fault-injection suite a chapter stops at its first failing check: the
            # suite only needs to know which row caught the fault, and the rest of the run is waste.
            self.assert_all()
        return bool(full["holds"])

    # --- adding rows ----------------------------------------------------------------------
    def theorem(self, result: str, quantity: str, measured: float, bound: float, *,
                reach: tuple[float, float], measured_by: Provenance, bound_by: Provenance,
                relation: str = "<=", box: str = "", worst_case: str = "", tolerance: float = 0.0,
                reach_why: str = "", tight_by_construction: str = "", reads_rule: str = "",
                note: str = "", fails_under: tuple[str, float] | None = None) -> bool:
        """Add a theorem check ``measured <relation> bound``; return whether it holds.

        ``reach`` is the quantity's real reach at these parameters; ``measured_by``/``bound_by``
        name the functions that computed each side (strings, callables or sequences of them);
        ``worst_case`` says where in the theorem's class the measurement was found. ``tolerance``
        absorbs float rounding only (absolute). ``ValueError`` if the bound is vacuous on the reach,
        if the two sides share a function, if ``reads_rule`` is given, or if the reach is infinite
        on the failing side without ``reach_why`` (see the module docstring).

        ``fails_under=(name, value)`` is the row's power: the value of the same quantity for a named
        worse output (the label-inverted hypothesis, the one-leaf tree, the worst split, the
        algorithm with a named fault of ``faults/`` at the witness), computed by this run. The row
        records whether that value violates the bound. Where it does not (a worse output that passes
        too, a NaN, a value beyond the reach), the row cannot be shown to fail at these parameters
        and is recorded as an observation saying so. :meth:`assert_all` fails on a counted theorem
        row that names no worse output (``no-power``) once a chapter asks for it.
        """
        row = self._theorem_row(result, quantity, measured, bound, reach=reach, relation=relation,
                                box=box, tolerance=tolerance, note=note, worst_case=worst_case,
                                measured_by=measured_by, bound_by=bound_by, reach_why=reach_why,
                                tight_by_construction=tight_by_construction, reads_rule=reads_rule, legacy=False)
        if fails_under is not None:
            if isinstance(fails_under, str) or len(fails_under) != 2 or not str(fails_under[0]).strip():
                raise ValueError(f"fails_under must be a pair (name of a worse output, its value), got {fails_under!r}")
            name, value = str(fails_under[0]), float(fails_under[1])
            worse = self._theorem_row(result, quantity, value, bound, reach=reach, relation=relation, box=box,
                                      tolerance=tolerance, note="", worst_case="", measured_by=measured_by,
                                      bound_by=bound_by, reach_why=reach_why, tight_by_construction="",
                                      reads_rule="", legacy=False)
            # a worse output outside the quantity's reach (or NaN) is not an output the row could meet
            admissible = not math.isnan(value) and worse["reach_low"] - worse["tolerance"] <= value \
                <= worse["reach_high"] + worse["tolerance"]
            row.update(fails_under=name, fails_under_value=value, fails_under_fails=admissible and not worse["holds"])
            if not row["fails_under_fails"] and row["holds"]:
                # At these parameters even the named worse output passes: the row shows nothing, so it
                # is shown as an observation (a failing measurement stays a failing theorem row).
                self.observation(result, quantity, measured, bound, relation=relation, box=box,
                                 worst_case=worst_case,
                                 why=f"no power at these parameters: {name}, a worse output, gives "
                                     f"{format_number(value)}, which passes the bound too")
                return True
        return self._add(row)

    def bound(self, result: str, quantity: str, measured: float, bound: float, *,
              value_range: tuple[float, float], relation: str = "<=", box: str = "",
              tolerance: float = 0.0, note: str = "", worst_case: str = "") -> bool:
        """The pre-issue-23 name of :meth:`theorem`: ``value_range`` for ``reach``, no provenance.

        Records a ``theorem`` row flagged ``legacy`` (which :func:`lint_table` reports as
        ``no-provenance``, and ``wide-reach`` for an infinite range); kept until every chapter
        has moved to :meth:`theorem`. A vacuous bound is refused as before.
        """
        return self._add(self._theorem_row(result, quantity, measured, bound, reach=value_range,
                                           relation=relation, box=box, tolerance=tolerance, note=note,
                                           worst_case=worst_case, measured_by=None, bound_by=None, reach_why="",
                                           tight_by_construction="", reads_rule="", legacy=True))

    def _theorem_row(self, result: str, quantity: str, measured: float, bound: float, *,
                     reach: tuple[float, float], relation: str, box: str, tolerance: float, note: str,
                     worst_case: str, measured_by: Provenance, bound_by: Provenance, reach_why: str,
                     tight_by_construction: str, reads_rule: str, legacy: bool) -> dict[str, object]:
        relation = _check_relation(relation)
        lo, hi = _check_range(reach, "reach" if not legacy else "value_range")
        tol = float(tolerance)
        if not tol >= 0:
            raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
        b = float(bound)
        if math.isnan(b):
            raise ValueError(f"bound must be a number, got nan ({result}: {quantity})")
        if _vacuous(b, relation, lo, hi):
            raise ValueError(
                f"bound {b:g} for {result!r} ({quantity}) with relation {relation!r} is outside the "
                f"reach [{lo:g}, {hi:g}] where the check could fail; record it as an observation")
        m = float(measured)
        in_reach = not math.isnan(m) and lo - tol <= m <= hi + tol
        holds = in_reach and (m <= b + tol if relation == "<=" else m >= b - tol)
        if not in_reach and not math.isnan(m):
            note = (note + "; " if note else "") + f"measured value outside its reach {_reach_text(lo, hi)}"
        # a bound at the end of the reach: every passing value equals it (an equality claim)
        equality = (b - lo <= tol) if relation == "<=" else (hi - b <= tol)
        tight = tight_by_construction or ("equality claim: the bound is the end of the reach" if equality else "")
        margin = theorem_margin(m, b, relation, lo if math.isfinite(lo) else 0.0)
        if holds and margin > 1:
            margin = 1.0  # beyond the bound by less than the rounding tolerance
        return dict(kind="theorem", result=result, box=box, quantity=quantity, measured=m, relation=relation,
                    bound=b, tolerance=tol, reach=_reach_text(lo, hi), reach_low=lo, reach_high=hi, margin=margin,
                    holds=holds, status="holds" if holds else "FAILS", worst_case=worst_case,
                    measured_by=", ".join(provenance_names(measured_by)),
                    bound_by=", ".join(provenance_names(bound_by)), reads_rule=reads_rule, reach_why=reach_why,
                    tight=tight, legacy=legacy, note=note)

    def identity(self, result: str, quantity: str, deviation: float, tolerance: float, *,
                 computed_by: tuple[Provenance, Provenance] | None = None, box: str = "",
                 worst_case: str = "", reads_rule: str = "", note: str = "") -> bool:
        """Add an identity: ``deviation`` = the largest |a − b| over two independent computations.

        ``computed_by=(first, second)`` names the two computations; a row without it is ``legacy``
        (the lint reports it), a row whose two computations share a function is refused.
        """
        tol = float(tolerance)
        if not tol >= 0:
            raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
        dev = float(deviation)
        if dev < 0:
            raise ValueError(f"deviation must be an absolute difference (>= 0), got {dev!r}")
        if computed_by is not None and (isinstance(computed_by, str) or len(computed_by) != 2):
            raise ValueError(f"computed_by must be a pair (first, second), got {computed_by!r}")
        first, second = computed_by if computed_by is not None else (None, None)
        holds = not math.isnan(dev) and dev <= tol
        return self._add(dict(kind="identity", result=result, box=box, quantity=quantity, measured=dev,
                              relation="<=", bound=tol, tolerance=tol, reach="[0, ∞)", reach_low=0.0,
                              reach_high=math.inf, margin=identity_margin(dev, tol), holds=holds,
                              status="holds" if holds else "FAILS", worst_case=worst_case,
                              measured_by=", ".join(provenance_names(first)),
                              bound_by=", ".join(provenance_names(second)), reads_rule=reads_rule,
                              legacy=computed_by is None, note=note))

    def counterexample(self, result: str, quantity: str, measured: float, claimed: float, *,
                       relation: str = "<=", reach: tuple[float, float] | None = None,
                       value_range: tuple[float, float] | None = None, box: str = "", tolerance: float = 0.0,
                       worst_case: str = "", note: str = "") -> bool:
        """Add a printed claim ``measured <relation> claimed`` that the data refute.

        The row holds (the counterexample stands) when the claim fails by more than ``tolerance``.
        ``reach`` (``value_range`` is its old name; default ``[0, ∞)``) sets the margin's origin;
        ``worst_case`` names the witness.
        """
        relation = _check_relation(relation)
        if reach is not None and value_range is not None:
            raise ValueError("give reach or its old name value_range, not both")
        lo, hi = _check_range(reach if reach is not None else value_range if value_range is not None
                              else (0.0, math.inf))
        m, c = float(measured), float(claimed)
        claim_holds = m <= c + tolerance if relation == "<=" else m >= c - tolerance
        refuted = not (math.isnan(m) or math.isnan(c)) and not claim_holds
        return self._add(dict(kind="counterexample", result=result, box=box, quantity=quantity, measured=m,
                              relation=relation, bound=c, tolerance=float(tolerance), reach=_reach_text(lo, hi),
                              reach_low=lo, reach_high=hi,
                              margin=theorem_margin(m, c, relation, lo if math.isfinite(lo) else 0.0),
                              holds=refuted, status="refuted" if refuted else "FAILS (claim holds)",
                              worst_case=worst_case, legacy=False, note=note))

    def observation(self, result: str, quantity: str, measured: float, bound: float | None = None, *,
                    why: str, relation: str = "<=", box: str = "", worst_case: str = "",
                    reads_rule: str = "") -> None:
        """Add a row that is shown but not counted: ``why`` says in one sentence why it is not a check.

        Its margin is the same ratio as a theorem row's, measured from 0, for information.
        ``relation=""`` shows ``bound`` as a reference value with no inequality (an exponent beside
        the one a lemma's O(·) suggests), and no margin.
        """
        if not why:
            raise ValueError("why must say why this row is an observation, got an empty string")
        relation = relation if relation == "" else _check_relation(relation)
        m = float(measured)
        b = _finite_or_none(None if bound is None else float(bound))
        margin = theorem_margin(m, b, relation) if relation and b is not None and math.isfinite(m) else math.nan
        self._add(dict(kind="observation", result=result, box=box, quantity=quantity, measured=m,
                       relation=relation if bound is not None else "",
                       bound=math.nan if bound is None else float(bound), tolerance=math.nan, reach="",
                       reach_low=math.nan, reach_high=math.nan, margin=margin, holds=True, status="shown",
                       worst_case=worst_case, reads_rule=reads_rule, legacy=False, note=why))

    # --- reading the table ----------------------------------------------------------------
    def assign_ledger(self, page: str) -> None:
        """Name each row's ledger entry (:mod:`dtbook.ledger`) from its page and result.

        A row whose result the ledger does not list raises a ``ValueError``: every row of every page
        belongs to one printed statement (or to a definition or algorithm the page implements).
        """
        from .ledger import covered_pages, entry_for_row

        if page not in covered_pages():
            return
        for row in self.rows:
            if not row.get("ledger"):
                row["ledger"] = entry_for_row(page, row["result"])

    def frame(self) -> pd.DataFrame:
        """The table as a tidy DataFrame (one row per check)."""
        return pd.DataFrame(self.rows, columns=COLUMNS)

    def failures(self) -> pd.DataFrame:
        """Counted rows that do not hold (:func:`failing_rows`, the one pass rule)."""
        return failing_rows(self.frame())

    def counts(self) -> dict[str, int]:
        """The number of rows of each kind (every kind present, zeros included)."""
        kinds = [r["kind"] for r in self.rows]
        return {kind: kinds.count(kind) for kind in KINDS}

    def closest_theorem_check(self) -> dict[str, object] | None:
        """The theorem row with the least room (largest margin), failing rows included.

        Never an identity, a counterexample or an observation, never a row tight by construction
        (an equality claim sits at its bound whatever the data); ``None`` when no row qualifies.
        """
        candidates = [r for r in self.rows if r["kind"] == "theorem" and not _text(r.get("tight"))
                      and not math.isnan(_as_float(r["margin"]))]
        if not candidates:
            return None
        return max(candidates, key=lambda r: _as_float(r["margin"]))

    def _theorem_results(self) -> list[dict[str, object]]:
        """One entry per (paper result, box) with theorem rows, in table order: its hardest row."""
        groups: dict[tuple[str, str], list[dict[str, object]]] = {}
        for r in self.rows:
            if r["kind"] == "theorem":
                groups.setdefault((_text(r["result"]), _text(r["box"])), []).append(r)
        out = []
        for (result, box), rows in groups.items():
            roomy = [r for r in rows if not _text(r.get("tight")) and not math.isnan(_as_float(r["margin"]))]
            failing = [r for r in rows if not _truthy(r["holds"])]
            pool = failing or roomy or rows
            hardest = max(pool, key=lambda r: -1.0 if math.isnan(_as_float(r["margin"])) else _as_float(r["margin"]))
            out.append({"result": result, "box": box, "checks": len(rows), "failing": len(failing),
                        "hardest": hardest, "tight": not failing and not roomy})
        return out

    def _statement_results(self) -> list[dict[str, object]]:
        """One entry per statement with theorem or counterexample rows, in table order: its hardest row
        and the verdict those rows support (the ledger's entry when rows name one, else the result)."""
        groups: dict[str, list[dict[str, object]]] = {}
        boxes: dict[str, str] = {}
        for r in self.rows:
            if r["kind"] not in ("theorem", "counterexample"):
                continue
            key = _text(r.get("ledger")) or _text(r["result"])
            groups.setdefault(key, []).append(r)
            boxes.setdefault(key, _text(r["box"]))
        out = []
        for key, rows in groups.items():
            failing = [r for r in rows if not _truthy(r["holds"])]
            refuting = [r for r in rows if r["kind"] == "counterexample"]
            roomy = [r for r in rows if r["kind"] == "theorem" and not _text(r.get("tight"))
                     and not math.isnan(_as_float(r["margin"]))]
            pool = failing or refuting or roomy or rows
            hardest = max(pool, key=lambda r: -1.0 if math.isnan(_as_float(r["margin"])) else _as_float(r["margin"]))
            tight = not failing and not refuting and not roomy
            if refuting:
                verdict = "refuted"
            elif tight or _as_float(hardest["margin"]) >= 1 - 1e-9:
                verdict = "tight"
            else:
                room = 1 / _as_float(hardest["margin"]) if _as_float(hardest["margin"]) > 0 else math.inf
                verdict = "holds" + (f", room ×{room:.3g}" if math.isfinite(room) else "")
            out.append({"statement": key, "box": boxes[key], "checks": len(rows), "failing": len(failing),
                        "hardest": hardest, "tight": tight, "verdict": verdict})
        return out

    def summary_sentence(self) -> str:
        """One sentence for the chapter's text: the counts by kind, failures, and the closest call."""
        c = self.counts()
        counted = sum(c[k] for k in COUNTED_KINDS)
        text = ""
        failing = len(self.failures())
        if failing:
            text = f"{_plural(failing, 'counted row does', 'counted rows do')} not hold. "
        text += (f"{counted} of the {len(self.rows)} rows are checks that can fail: "
                 f"{_plural(c['theorem'], 'theorem check', 'theorem checks')}, "
                 f"{_plural(c['identity'], 'identity', 'identities')} and "
                 f"{_plural(c['counterexample'], 'counterexample', 'counterexamples')}; "
                 f"{_plural(c['observation'], 'observation is', 'observations are')} shown without being counted")
        closest = self.closest_theorem_check()
        if closest is not None:
            text += (f". The theorem check with the least room is {closest['result']} ({closest['quantity']}), "
                     f"at margin {format_margin(closest['margin'])}")
            if _text(closest.get("worst_case")):
                text += f", worst case found at {closest['worst_case']}"
        theorems = [r for r in self.rows if r["kind"] == "theorem"]
        powered = sum(bool(r.get("fails_under_fails")) for r in theorems)
        if theorems:
            text += (". Every theorem check names a worse output under which it fails" if powered == len(theorems)
                     else f". {powered} of the {len(theorems)} theorem checks name a worse output under which "
                          f"they fail")
        return text + "."

    def summary(self) -> TableSummary:
        """The chapter's closing summary: theorem checks with their room, counts, the full table collapsed."""
        c = self.counts()
        results = self._theorem_results()
        closest = self.closest_theorem_check()
        parts: list[str] = []
        failing = self.failures()
        if len(failing):
            parts.append(_coloured(f"{_plural(len(failing), 'counted row does', 'counted rows do')} not hold: "
                                   + _md("; ".join(f"{r['result']} ({r['quantity']})" for _, r in failing.iterrows())),
                                   ROOM_BANDS[-1][2]))
        statements = self._statement_results()
        if statements:
            held = sum(1 for g in statements if not g["failing"])
            parts.append(f"**{_plural(len(statements), 'statement', 'statements')} checked on this page**, "
                         f"{held} of them without a failing row. Margin = measured/bound at the hardest case "
                         "(bound/measured for a lower bound): 1 is at the bound, above 1 fails.")
            body = []
            for g in statements:
                r = g["hardest"]
                tight = bool(g["tight"])
                _, colour = room_band(r["margin"], tight=tight)
                margin_text = format_margin(r["margin"], _text(r["kind"]), tight=tight)
                verdict = g["verdict"] if not g["failing"] else f"{g['failing']} of {g['checks']} fail"
                body.append([_statement_link(g["statement"], g["box"]),
                             _md(verdict), _coloured(_md(margin_text), colour),
                             _md(_witness(r.get("worst_case"))) or "—"])
            # each box carries its verdict line: the per-statement table folds, as the full table does
            parts.append(f":::{{dropdown}} The {_plural(len(statements), 'statement', 'statements')} of this page: "
                         "verdict, margin, hardest case\n\n"
                         + _pipe_table(["statement", "verdict", "margin", "hardest case"], body) + "\n\n"
                         + "Margin colours: " + "; ".join(_coloured(name, colour) + f" {ROOM_KEY[name]}"
                                                          for _, name, colour in ROOM_BANDS) + ".\n:::")
        else:
            parts.append("**No theorem check** in this table.")
        others = (f"Besides these: {_plural(c['identity'], 'identity', 'identities')} (two independent "
                  f"computations agree) and {_plural(c['observation'], 'observation', 'observations')} "
                  "(shown, not counted); the full table below gives each row's quantity, where it came from and the search.")
        parts.append(others)
        parts.append(f":::{{dropdown}} The full verification table ({_plural(len(self.rows), 'row', 'rows')})\n\n"
                     + self.to_markdown() + "\n:::")
        markdown = "\n\n".join(parts) + "\n"
        return TableSummary(counts=c, failures=int(len(failing)),
                            closest=None if closest is None else {"result": closest["result"],
                                                                  "quantity": closest["quantity"],
                                                                  "margin": float(closest["margin"])},
                            results=[{**{k: v for k, v in g.items() if k != "hardest"},
                                      "quantity": g["hardest"]["quantity"], "margin": g["hardest"]["margin"],
                                      "worst_case": g["hardest"].get("worst_case", "")} for g in results],
                            sentence=self.summary_sentence(), markdown=markdown)

    def to_markdown(self) -> str:
        """The full table as MyST Markdown, one pipe table per kind; box labels become ``{prf:ref}`` links."""
        out: list[str] = []
        for kind in KINDS:
            rows = [r for r in self.rows if r["kind"] == kind]
            if not rows:
                continue
            out.append(f"**{GROUP_TITLES[kind]}**: {len(rows)}")
            body = []
            for r in rows:
                tight = bool(_text(r.get("tight")))
                tol = _as_float(r["tolerance"])
                measured = format_number(_as_float(r["measured"]), tol if tol > 0 else None)
                margin = format_margin(r["margin"], kind, tight=tight)
                if kind in ("theorem", "identity"):
                    margin = _coloured(_md(margin), room_band(r["margin"], tight=tight)[1])
                else:
                    margin = _md(margin)
                box = box_markdown(r["box"]) if _text(r["box"]) else "—"
                status = _md(r["status"])
                if kind == "theorem":
                    by = " · ".join(x for x in (_md(r.get("measured_by")), _md(r.get("bound_by"))) if x) or "—"
                    power = (f"fails under {_text(r.get('fails_under'))} "
                             f"({format_number(_as_float(r.get('fails_under_value')))})"
                             if _text(r.get("fails_under")) else "")
                    note = "; ".join(x for x in (_text(r.get("note")), _text(r.get("tight")),
                                                 _text(r.get("reach_why")), power) if x)
                    body.append([_md(r["result"]), box, _md(r["quantity"]), _md(measured),
                                 _relation_text(r["relation"]), _md(format_number(_as_float(r["bound"]))),
                                 _md(r["reach"]), margin, status, _md(r.get("worst_case")) or "—", by, _md(note)])
                elif kind == "identity":
                    by = " · ".join(x for x in (_md(r.get("measured_by")), _md(r.get("bound_by"))) if x) or "—"
                    body.append([_md(r["result"]), box, _md(r["quantity"]), _md(measured),
                                 _md(format_number(_as_float(r["bound"]))), margin, status, by, _md(r["note"])])
                elif kind == "counterexample":
                    body.append([_md(r["result"]), box, _md(r["quantity"]), _md(measured),
                                 _relation_text(r["relation"]), _md(format_number(_as_float(r["bound"]))), margin,
                                 status, _md(r.get("worst_case")) or "—", _md(r["note"])])
                else:
                    body.append([_md(r["result"]), box, _md(r["quantity"]), _md(measured),
                                 _relation_text(r["relation"]), _md(format_number(_as_float(r["bound"]))), margin,
                                 _md(r["note"])])
            header = {
                "theorem": ["paper result", "book box", "quantity", "measured", "", "bound", "reach", "margin",
                            "status", "worst case found at", "measured by · bound by", "note"],
                "identity": ["paper result", "book box", "quantity", "deviation", "tolerance", "margin", "status",
                             "computed by", "note"],
                "counterexample": ["paper result", "book box", "quantity", "measured", "", "claimed", "margin",
                                   "status", "witness", "note"],
                "observation": ["paper result", "book box", "quantity", "measured", "", "bound", "measured/bound",
                                "why not counted"],
            }[kind]
            out.append(_pipe_table(header, body))
        return "\n\n".join(out)

    def to_html(self) -> str:
        """The table grouped by kind, as self-contained HTML (no emoji, no DataFrame index)."""
        head = ["paper result", "book box", "quantity", "measured", "", "bound", "margin", "status", "note"]
        style = ("<style>.dt-verify{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}"
                 ".dt-verify th,.dt-verify td{padding:4px 8px;border-bottom:1px solid #ddd;"
                 "text-align:left;vertical-align:top}.dt-verify td.num{text-align:right;white-space:nowrap}"
                 ".dt-verify tr.group td{background:#f3f3f3;font-weight:600}"
                 ".dt-verify td.fail{color:#C0392B;font-weight:700}</style>")
        out = [style, '<table class="dt-verify"><thead><tr>']
        out += [f"<th>{h}</th>" for h in head]
        out.append("</tr></thead><tbody>")
        for kind in KINDS:
            rows = [r for r in self.rows if r["kind"] == kind]
            if not rows:
                continue
            out.append(f'<tr class="group"><td colspan="{len(head)}">{GROUP_TITLES[kind]} ({len(rows)})</td></tr>')
            for r in rows:
                tol = _as_float(r["tolerance"])
                status_ok = r["status"] in ("holds", "refuted", "shown")
                cells = [html.escape(_text(r["result"])), _box_html(r["box"]), html.escape(_text(r["quantity"])),
                         f'<td class="num">{format_number(_as_float(r["measured"]), tol if tol > 0 else None)}</td>',
                         html.escape(_relation_text(r["relation"])),
                         f'<td class="num">{format_number(_as_float(r["bound"]))}</td>',
                         f'<td class="num">{html.escape(format_margin(r["margin"], kind, tight=bool(_text(r.get("tight")))))}</td>',
                         f'<td class="{"" if status_ok else "fail"}">{r["status"]}</td>',
                         html.escape(_text(r["note"]))]
                out.append("<tr>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in cells) + "</tr>")
        out.append("</tbody></table>")
        return "".join(out)

    def show(self) -> object:
        """Display the table in a notebook as HTML (returns the IPython HTML object)."""
        from IPython.display import HTML, display
        obj = HTML(self.to_html())
        display(obj)
        return obj

    def assert_all(self, *, allow_legacy: bool = True, allow_no_power: bool = False) -> None:
        """Raise ``AssertionError`` listing every counted row that fails (or if nothing is counted).

        Then run :func:`lint_table`: a finding fails the table too, except on ``legacy`` rows while
        ``allow_legacy`` is true (the default until every chapter has left :meth:`bound`).
        When the environment variable ``DTCORE_VERIFICATION_JSON`` names a file, the table is
        first written there as JSON, so the runner (:mod:`dtbook.run`) can tell which rows
        failed; with ``DTCORE_VERIFICATION_STOP_EARLY`` set as well (the fault suite), the first
        failing counted row raises at once.
        """
        target = os.environ.get(VERIFICATION_JSON_ENV)
        if target:
            pathlib.Path(target).write_text(self.frame().to_json(orient="records"))
        counted = [r for r in self.rows if r["kind"] in COUNTED_KINDS]
        if not counted:
            raise AssertionError("the verification table has no counted row: nothing was checked")
        bad = failing_rows(self.frame())
        if len(bad):
            raise AssertionError("theorem checks failed:\n" + bad[["kind", "result", "quantity", "measured",
                                                                      "relation", "bound", "margin"]].to_string())
        assert_lint_clean(self, allow_legacy=allow_legacy, allow_no_power=allow_no_power)


def worst(values: np.ndarray | list[float], kind: str = "max") -> float:
    """The worst case of a measured array: its max (for an upper bound) or min (for a lower one)."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        raise ValueError("values must be non-empty, got an empty array")
    if kind not in ("max", "min"):
        raise ValueError(f"kind must be 'max' or 'min', got {kind!r}")
    return float(arr.max() if kind == "max" else arr.min())


def failing_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The one rule of whether a verification table passed: its counted rows that do not hold.

    A row counts when its ``kind`` is ``theorem``, ``identity`` or ``counterexample``; it passes when
    its ``holds`` is True (for a counterexample: the printed claim is refuted). Observations never
    fail. ``table`` is :meth:`VerificationTable.frame` or the same table read back by
    :func:`read_verification`; ``holds`` must be boolean, since a string such as ``"True"`` would be
    a table written by something else, and is refused rather than guessed at.
    """
    missing = {"kind", "holds"} - set(table.columns)
    if missing:
        raise ValueError(f"table must have the columns 'kind' and 'holds', missing {sorted(missing)}")
    unknown = sorted(set(table["kind"]) - set(KINDS))
    if unknown:
        raise ValueError(f"table['kind'] must be one of {list(KINDS)}, got {unknown}")
    not_bool = [v for v in table["holds"] if not isinstance(v, (bool, np.bool_))]
    if not_bool:
        raise ValueError(f"table['holds'] must be True or False, got {not_bool[:3]!r}")
    holds = table["holds"].astype(bool)
    return table[table["kind"].isin(VERIFIED_KINDS) & ~holds]


def table_passes(table: pd.DataFrame) -> bool:
    """True when the table has at least one counted row and every counted row holds."""
    return bool(table["kind"].isin(VERIFIED_KINDS).any()) and failing_rows(table).empty


def read_verification(path: str | pathlib.Path) -> pd.DataFrame:
    """A verification table read back: the JSON of ``DTCORE_VERIFICATION_JSON`` or a chapter's
    ``verification.csv`` (``save_results``), with the columns of :meth:`VerificationTable.frame`."""
    path = pathlib.Path(path)
    if path.suffix == ".json":
        return pd.DataFrame(json.loads(path.read_text()), columns=COLUMNS)
    return pd.read_csv(path)
