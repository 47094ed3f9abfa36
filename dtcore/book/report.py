"""The verification table that closes every chapter: each row is a check of a stated kind.

Kinds:

``bound``
    a measured quantity against a bound computed independently of the measurement. The caller
    states the range the quantity can take; a bound on the wrong side of that range's end (one
    that every possible value satisfies) is refused with a ``ValueError``, so a ``bound`` row can
    always fail.
``identity``
    the largest deviation between two independent computations of one exact quantity, against a
    stated tolerance.
``counterexample``
    a statement printed in a paper, shown false on data: the row holds when the data violate it.
``observation``
    a vacuous bound or a measurement with no theorem behind it: shown, never counted as verified
    and never asserted.

Every row has a *margin*, how close it came to failing; a margin above 1 means the row fails.
For a bound ``measured <= bound`` on a range starting at ``lo`` it is
``(measured - lo) / (bound - lo)``, the share of the room below the bound that the measurement
uses (``measured / bound`` for non-negative quantities); for ``measured >= bound`` on a range
ending at ``hi`` it is ``(hi - measured) / (hi - bound)`` (``bound / measured`` when the range is
unbounded above and starts at 0). For identities it is ``deviation / tolerance``. For a
counterexample it is the margin of the printed claim, so the claim is refuted when it exceeds 1.
"""

from __future__ import annotations

import html
import json
import math
import os
import pathlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

KINDS = ("bound", "identity", "counterexample", "observation")
VERIFIED_KINDS = ("bound", "identity", "counterexample")
COLUMNS = ["kind", "result", "box", "quantity", "measured", "relation", "bound", "tolerance", "range",
           "margin", "holds", "status", "note"]
# The environment variables through which a runner (dtcore.book.run) asks for the table as JSON, and
# (the fault-injection suite) for the chapter to stop at its first failing check.
VERIFICATION_JSON_ENV = "DTCORE_VERIFICATION_JSON"
STOP_EARLY_ENV = "DTCORE_VERIFICATION_STOP_EARLY"


def _finite_or_none(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def bound_margin(measured: float, bound: float, relation: str, value_range: tuple[float, float]) -> float:
    """How close ``measured <relation> bound`` came to failing: 1 at the bound, above 1 beyond it."""
    lo, hi = (float(v) for v in value_range)
    m, b = float(measured), float(bound)
    if math.isnan(m) or math.isnan(b):
        return math.nan
    if relation == "<=":
        ref = lo if math.isfinite(lo) else 0.0
        room = b - ref
        return (m - ref) / room if room > 0 else (0.0 if m <= b else math.inf)
    ref = hi if math.isfinite(hi) else None
    if ref is not None:
        room = ref - b
        return (ref - m) / room if room > 0 else (0.0 if m >= b else math.inf)
    ref = lo if math.isfinite(lo) else 0.0
    if m - ref <= 0:
        return math.inf if b > ref else 0.0
    return (b - ref) / (m - ref)


def _check_relation(relation: str) -> str:
    if relation not in ("<=", ">="):
        raise ValueError(f"relation must be '<=' or '>=', got {relation!r}")
    return relation


def _check_range(value_range: tuple[float, float]) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in value_range)
    except (TypeError, ValueError):
        raise ValueError(f"value_range must be a pair (low, high), got {value_range!r}") from None
    if not lo < hi:
        raise ValueError(f"value_range must satisfy low < high, got {value_range!r}")
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


@dataclass
class VerificationTable:
    """Collects one row per check; :meth:`assert_all` fails the chapter if a counted row fails.

    Use :meth:`bound`, :meth:`identity`, :meth:`counterexample` and :meth:`observation`.
    ``result`` names the paper's result with the paper's own number ("Lemma 4.4"), ``box`` the
    book's box that restates it ("Lemma 4.6"), so a reader can find both.
    """

    rows: list[dict[str, object]] = field(default_factory=list)

    def _add(self, **row: object) -> bool:
        full = {c: row.get(c) for c in COLUMNS}
        full["note"] = row.get("note") or ""
        full["box"] = row.get("box") or ""
        self.rows.append(full)
        if os.environ.get(STOP_EARLY_ENV) and full["kind"] in VERIFIED_KINDS and not full["holds"]:
            # Under the fault-injection suite a chapter stops at its first failing check: the
            # suite only needs to know which row caught the fault, and the rest of the run is waste.
            self.assert_all()
        return bool(full["holds"])

    def bound(self, result: str, quantity: str, measured: float, bound: float, *,
              value_range: tuple[float, float], relation: str = "<=", box: str = "",
              tolerance: float = 0.0, note: str = "") -> bool:
        """Add ``measured <relation> bound``, the quantity ranging over ``value_range``.

        ``tolerance`` absorbs float rounding only (absolute). The bound must lie inside the range,
        on the side where the check can fail: for ``<=`` ``low <= bound < high``, for ``>=``
        ``low < bound <= high``; otherwise the row could never fail and a ``ValueError`` says to
        record it with :meth:`observation`. A measurement outside its own range fails the row.
        """
        relation = _check_relation(relation)
        lo, hi = _check_range(value_range)
        b = float(bound)
        if math.isnan(b):
            raise ValueError(f"bound must be a number, got nan ({result}: {quantity})")
        vacuous = (b >= hi or b < lo) if relation == "<=" else (b <= lo or b > hi)
        if vacuous:
            raise ValueError(
                f"bound {b:g} for {result!r} ({quantity}) with relation {relation!r} is outside the "
                f"range [{lo:g}, {hi:g}] where the check could fail; record it as an observation")
        m = float(measured)
        in_range = not math.isnan(m) and lo - tolerance <= m <= hi + tolerance
        holds = in_range and (m <= b + tolerance if relation == "<=" else m >= b - tolerance)
        if not in_range and not math.isnan(m):
            note = (note + "; " if note else "") + f"measured value outside its range [{lo:g}, {hi:g}]"
        return self._add(kind="bound", result=result, box=box, quantity=quantity, measured=m,
                         relation=relation, bound=b, tolerance=float(tolerance),
                         range=f"[{format_number(lo)}, {format_number(hi)}]",
                         margin=bound_margin(m, b, relation, (lo, hi)), holds=holds,
                         status="holds" if holds else "FAILS", note=note)

    def identity(self, result: str, quantity: str, deviation: float, tolerance: float, *,
                 box: str = "", note: str = "") -> bool:
        """Add an identity: ``deviation`` = the largest |a − b| over two independent computations."""
        tol = float(tolerance)
        if not tol >= 0:
            raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
        dev = float(deviation)
        if dev < 0:
            raise ValueError(f"deviation must be an absolute difference (>= 0), got {dev!r}")
        holds = not math.isnan(dev) and dev <= tol
        margin = math.nan if math.isnan(dev) else (dev / tol if tol > 0 else (0.0 if dev == 0 else math.inf))
        return self._add(kind="identity", result=result, box=box, quantity=quantity, measured=dev,
                         relation="<=", bound=tol, tolerance=tol, range="[0, ∞)", margin=margin,
                         holds=holds, status="holds" if holds else "FAILS", note=note)

    def counterexample(self, result: str, quantity: str, measured: float, claimed: float, *,
                       relation: str = "<=", value_range: tuple[float, float] = (0.0, math.inf),
                       box: str = "", tolerance: float = 0.0, note: str = "") -> bool:
        """Add a printed claim ``measured <relation> claimed`` that the data refute.

        The row holds (the counterexample stands) when the claim fails by more than ``tolerance``.
        """
        relation = _check_relation(relation)
        lo, hi = _check_range(value_range)
        m, c = float(measured), float(claimed)
        claim_holds = m <= c + tolerance if relation == "<=" else m >= c - tolerance
        refuted = not (math.isnan(m) or math.isnan(c)) and not claim_holds
        return self._add(kind="counterexample", result=result, box=box, quantity=quantity, measured=m,
                         relation=relation, bound=c, tolerance=float(tolerance),
                         range=f"[{format_number(lo)}, {format_number(hi)}]",
                         margin=bound_margin(m, c, relation, (lo, hi)), holds=refuted,
                         status="refuted" if refuted else "FAILS (claim holds)", note=note)

    def observation(self, result: str, quantity: str, measured: float, bound: float | None = None, *,
                    why: str, relation: str = "<=", box: str = "") -> None:
        """Add a row that is shown but not counted: ``why`` says in one sentence why it is not a check."""
        if not why:
            raise ValueError("why must say why this row is an observation, got an empty string")
        m = float(measured)
        b = _finite_or_none(None if bound is None else float(bound))
        margin = m / b if b not in (None, 0.0) and math.isfinite(m) else math.nan
        self._add(kind="observation", result=result, box=box, quantity=quantity, measured=m,
                  relation=relation if bound is not None else "", bound=math.nan if bound is None else float(bound),
                  tolerance=math.nan, range="", margin=margin, holds=True, status="shown", note=why)

    # --- reading the table ----------------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        """The table as a tidy DataFrame (one row per check)."""
        return pd.DataFrame(self.rows, columns=COLUMNS)

    def failures(self) -> pd.DataFrame:
        """Counted rows that do not hold (:func:`failing_rows`, the one pass rule)."""
        return failing_rows(self.frame())

    def summary(self) -> dict[str, object]:
        """Counts by kind, failures, and the counted row that came closest to failing."""
        df = self.frame()
        counts = {kind: int((df["kind"] == kind).sum()) for kind in KINDS}
        checked = df[df["kind"].isin(["bound", "identity"])]
        closest = None
        if len(checked):
            margins = checked["margin"].astype(float).fillna(math.inf)
            row = checked.loc[margins.idxmax()]
            closest = {"result": row["result"], "quantity": row["quantity"], "margin": float(row["margin"])}
        return {"counts": counts, "failures": int(len(self.failures())), "closest": closest}

    def summary_sentence(self) -> str:
        """One sentence for the chapter's text: what could fail, and what came closest."""
        s = self.summary()
        c = s["counts"]
        could_fail = c["bound"] + c["identity"] + c["counterexample"]
        text = (f"{could_fail} of the {sum(c.values())} rows are checks that can fail: {c['bound']} "
                f"bound{'s' if c['bound'] != 1 else ''}, {c['identity']} "
                f"identit{'ies' if c['identity'] != 1 else 'y'} and {c['counterexample']} "
                f"counterexample{'s' if c['counterexample'] != 1 else ''}; {c['observation']} "
                f"observation{'s are' if c['observation'] != 1 else ' is'} shown without being counted")
        if s["closest"] is not None:
            cl = s["closest"]
            text += (f". The check that came closest to failing is {cl['result']} ({cl['quantity']}), "
                     f"at margin {cl['margin']:.3g}")
        return text + "."

    def to_html(self) -> str:
        """The table grouped by kind, as self-contained HTML (no emoji, no DataFrame index)."""
        titles = {"bound": "Bounds (measured against an independently computed bound)",
                  "identity": "Identities (two independent computations)",
                  "counterexample": "Counterexamples (a printed statement refuted on data)",
                  "observation": "Observations (shown, not counted as verified)"}
        head = ["paper result", "book box", "quantity", "measured", "", "bound", "margin", "status", "note"]
        style = ("<style>.dt-verify{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}"
                 ".dt-verify th,.dt-verify td{padding:4px 8px;border-bottom:1px solid #ddd;"
                 "text-align:left;vertical-align:top}.dt-verify td.num{text-align:right;white-space:nowrap}"
                 ".dt-verify tr.group td{background:#f3f3f3;font-weight:600}"
                 ".dt-verify td.fail{color:#b00020;font-weight:700}</style>")
        out = [style, '<table class="dt-verify"><thead><tr>']
        out += [f"<th>{h}</th>" for h in head]
        out.append("</tr></thead><tbody>")
        for kind in KINDS:
            rows = [r for r in self.rows if r["kind"] == kind]
            if not rows:
                continue
            out.append(f'<tr class="group"><td colspan="{len(head)}">{titles[kind]} ({len(rows)})</td></tr>')
            for r in rows:
                tol = r["tolerance"] if isinstance(r["tolerance"], float) and r["tolerance"] > 0 else None
                status_ok = r["status"] in ("holds", "refuted", "shown")
                cells = [html.escape(str(r["result"])), html.escape(str(r["box"])), html.escape(str(r["quantity"])),
                         f'<td class="num">{format_number(r["measured"], tol)}</td>',
                         html.escape(str(r["relation"]).replace("<=", "≤").replace(">=", "≥")),
                         f'<td class="num">{format_number(r["bound"])}</td>',
                         f'<td class="num">{format_number(r["margin"])}</td>',
                         f'<td class="{"" if status_ok else "fail"}">{r["status"]}</td>',
                         html.escape(str(r["note"]))]
                out.append("<tr>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in cells) + "</tr>")
        out.append("</tbody></table>")
        return "".join(out)

    def show(self) -> object:
        """Display the table in a notebook (returns the IPython HTML object)."""
        from IPython.display import HTML, display
        obj = HTML(self.to_html())
        display(obj)
        return obj

    def assert_all(self) -> None:
        """Raise ``AssertionError`` listing every counted row that fails (or if nothing is counted).

        When the environment variable ``DTCORE_VERIFICATION_JSON`` names a file, the table is
        first written there as JSON, so the runner (:mod:`dtcore.book.run`) can tell which rows
        failed; with ``DTCORE_VERIFICATION_STOP_EARLY`` set as well (the fault suite), the first
        failing counted row raises at once.
        """
        target = os.environ.get(VERIFICATION_JSON_ENV)
        if target:
            pathlib.Path(target).write_text(self.frame().to_json(orient="records"))
        counted = [r for r in self.rows if r["kind"] in VERIFIED_KINDS]
        if not counted:
            raise AssertionError("the verification table has no counted row: nothing was checked")
        bad = failing_rows(self.frame())
        if len(bad):
            raise AssertionError("theorem checks failed:\n" + bad[["kind", "result", "quantity", "measured",
                                                                      "relation", "bound", "margin"]].to_string())


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

    A row counts when its ``kind`` is ``bound``, ``identity`` or ``counterexample``; it passes when
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
