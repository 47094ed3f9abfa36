"""The chapters' scaffolding: declarative parameters, one validator, and the closing step.

Every chapter declares its papermill parameters once, as a :class:`ParameterSpec` in
:mod:`dtcore.book.specs` (name, type, allowed range, quick and full defaults, one line of help). The
notebook's ``parameters`` cell sets each to ``None`` ("the default of this scale") or a value;
the next cell calls ``SPEC.resolve(globals())``, which fills the defaults and raises a
``ValueError`` naming any bad parameter. The README's parameter tables are generated from the
same specifications (``python -m dtcore.book.specs``), and a test keeps them in step.
"""

from __future__ import annotations

import math
import pathlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd

from .report import COUNTED_KINDS, TableSummary, VerificationTable
from ..validate import check_int, check_real

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
SCALES = ("quick", "full")
Kind = Literal["int", "real", "bool", "str", "int_list", "real_list"]
_SAME = object()  # a full-scale default equal to the quick one

Limit = float | int | Callable[[Mapping[str, Any]], float] | None


@dataclass(frozen=True)
class Param:
    """One chapter parameter.

    ``low``/``high`` may be numbers or functions of the parameters resolved before this one (in
    declaration order), for ranges that depend on another parameter (``c < 1/2 - alpha``).
    Integers use a closed range; reals an open one unless ``low_open``/``high_open`` say otherwise.
    """

    name: str
    kind: Kind
    quick: Any
    full: Any = _SAME
    help: str = ""
    low: Limit = None
    high: Limit = None
    low_open: bool = True
    high_open: bool = True
    choices: tuple[str, ...] = ()
    min_length: int = 1
    sort: bool = False
    range_text: str = ""  # the allowed range in words, where a bound depends on other parameters

    def default(self, scale: str) -> Any:
        return self.quick if self.full is _SAME or scale == "quick" else self.full

    def _limits(self, resolved: Mapping[str, Any]) -> tuple[float | None, float | None]:
        lo = self.low(resolved) if callable(self.low) else self.low
        hi = self.high(resolved) if callable(self.high) else self.high
        return lo, hi

    def _scalar(self, name: str, value: Any, lo: float | None, hi: float | None) -> Any:
        if self.kind in ("int", "int_list"):
            return check_int(name, value, None if lo is None else math.ceil(lo), None if hi is None else math.floor(hi))
        if self.kind in ("real", "real_list"):
            return check_real(name, value, -math.inf if lo is None else lo, math.inf if hi is None else hi,
                              low_open=self.low_open or lo is None, high_open=self.high_open or hi is None)
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"{name} must be True or False, got {value!r} "
                                 f"(with papermill, pass -p {name} True, capitalised)")
            return value
        if not isinstance(value, str) or (self.choices and value not in self.choices):
            allowed = f"one of {list(self.choices)}" if self.choices else "a string"
            raise ValueError(f"{name} must be {allowed}, got {value!r}")
        return value

    def validate(self, value: Any, resolved: Mapping[str, Any]) -> Any:
        """The validated value (defaults already filled); ``ValueError`` naming the parameter otherwise."""
        lo, hi = self._limits(resolved)
        if not self.kind.endswith("_list"):
            return self._scalar(self.name, value, lo, hi)
        if isinstance(value, str):
            raise ValueError(
                f"{self.name} must be a list, got the string {value!r}; with papermill pass lists as YAML, "
                f"e.g. -y \"{self.name}: [{', '.join(map(str, self.quick))}]\"")
        if not isinstance(value, Sequence):
            raise ValueError(f"{self.name} must be a list, got {value!r}")
        items = [self._scalar(f"{self.name}[{i}]", v, lo, hi) for i, v in enumerate(value)]
        if len(items) < self.min_length:
            raise ValueError(f"{self.name} must list at least {self.min_length} value(s), got {list(value)!r}")
        return sorted(items) if self.sort else items

    def describe(self) -> str:
        """The allowed values in words, for the README."""
        kind = {"int": "integer", "real": "real", "bool": "True/False", "str": "string",
                "int_list": "list of integers", "real_list": "list of reals"}[self.kind]
        if self.range_text:
            return f"{kind}, {self.range_text}"
        if self.choices:
            return "one of " + ", ".join(f"`{c}`" for c in self.choices)
        if callable(self.low) or callable(self.high) or self.low is not None or self.high is not None:
            def show(v: Limit) -> str:
                if callable(v):
                    return "…"
                return str(int(v)) if float(v).is_integer() else f"{v:g}"
            lo = "−∞" if self.low is None else show(self.low)
            hi = "∞" if self.high is None else show(self.high)
            if self.kind.startswith("int"):
                interval = f"[{lo}, {hi}{')' if self.high is None else ']'}"
                return f"{kind}, each in {interval}" if self.kind.endswith("list") else f"{kind} in {interval}"
            brackets = ("(" if self.low_open or self.low is None else "[") + f"{lo}, {hi}" + \
                (")" if self.high_open or self.high is None else "]")
            return f"{kind}, each in {brackets}" if self.kind.endswith("list") else f"{kind} in {brackets}"
        return kind


def _show_default(value: Any) -> str:
    return f"`{value!r}`"


@dataclass(frozen=True)
class ParameterSpec:
    """A chapter's parameters: ``seed``, ``scale`` and ``save_results`` are added to every chapter."""

    chapter: str
    title: str
    params: tuple[Param, ...]
    # Constraints between parameters: each raises ValueError naming a parameter, after resolution.
    checks: tuple[Callable[[Mapping[str, Any]], None], ...] = ()
    common: tuple[Param, ...] = field(default=(
        Param("seed", "int", 0, help="seed of every random draw (a `SeedSequence` per task)", low=0),
        Param("save_results", "bool", False, help="write the tidy results as CSV under `results/<chapter>/`"),
    ))

    def names(self) -> list[str]:
        return ["seed", "scale", *[p.name for p in self.params], "save_results"]

    def resolve(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Validate the chapter's parameters (e.g. ``globals()`` of the notebook) and fill defaults.

        ``None`` means the default of the chosen ``scale``. Returns a dict with every parameter.
        """
        scale = values.get("scale", "quick")
        if scale not in SCALES:
            raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
        resolved: dict[str, Any] = {"scale": scale}
        for p in (*self.common, *self.params):
            value = values.get(p.name)
            resolved[p.name] = p.validate(p.default(scale) if value is None else value, resolved)
        for check in self.checks:
            check(resolved)
        return resolved

    def markdown(self) -> str:
        """The README table of this chapter's parameters."""
        lines = [f"**{self.title}** (`book/{self.chapter}.ipynb`)", "",
                 "| parameter | allowed | quick | full | meaning |", "|---|---|---|---|---|",
                 "| `scale` | `\"quick\"` or `\"full\"` | `'quick'` | | the size of every experiment; the two "
                 "columns give each parameter's default at that scale |"]
        for p in (*self.common[:1], *self.params, *self.common[1:]):
            full = "" if p.full is _SAME else _show_default(p.full)
            cells = [f"`{p.name}`", p.describe(), _show_default(p.quick), full or "same", p.help]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
        return "\n".join(lines)


def results_dir(chapter: str) -> pathlib.Path:
    """``results/<chapter>/`` under the repository root, whatever the working directory."""
    return REPO_ROOT / "results" / chapter


def save_results(chapter: str, frames: Mapping[str, pd.DataFrame]) -> pathlib.Path:
    """Write each DataFrame as ``results/<chapter>/<name>.csv``; return the directory."""
    out = results_dir(chapter)
    out.mkdir(parents=True, exist_ok=True)
    for name, df in frames.items():
        df.to_csv(out / f"{name}.csv", index=False)
    return out


def close_chapter(chapter: str, table: VerificationTable, results: Mapping[str, pd.DataFrame], *,
                  save: bool, started: float, glue_prefix: str) -> TableSummary:
    """The closing step of every chapter: show the table's summary, glue it, save the CSVs.

    Displays :meth:`VerificationTable.summary` (the theorem checks with their room, the counts of
    identities, counterexamples and observations, the full table in a collapsed dropdown; MyST
    Markdown). Glues ``<prefix>_verification_summary`` (one sentence: counts by kind and the
    closest call), ``<prefix>_checks_counted`` (theorem checks, identities and counterexamples),
    ``<prefix>_theorem_checks`` and ``<prefix>_runtime`` (seconds since ``started``). Returns the
    summary (it does not show a second time as the cell's value). The final ``table.assert_all()``
    stays in the notebook's last cell, where a reader sees it.
    """
    from myst_nb import glue

    summary = table.summary()
    summary.show()
    glue(f"{glue_prefix}_verification_summary", summary.sentence, display=False)
    counts = summary.counts
    glue(f"{glue_prefix}_checks_counted", sum(counts[kind] for kind in COUNTED_KINDS), display=False)
    glue(f"{glue_prefix}_theorem_checks", counts["theorem"], display=False)
    glue(f"{glue_prefix}_runtime", time.perf_counter() - started, display=False)
    if save:
        out = save_results(chapter, {**results, "verification": table.frame()})
        print(f"wrote {len(results) + 1} CSV files to {out}")
    return summary
