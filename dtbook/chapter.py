"""The chapters' scaffolding: declarative parameters, one validator, and the closing step.

Every chapter declares its papermill parameters once, as a :class:`ParameterSpec` in
:mod:`dtbook.specs` (name, type, allowed range, quick and full defaults, one line of help). The
notebook's ``parameters`` cell sets each to ``None`` ("the default of this scale") or a value;
the next cell calls ``SPEC.resolve(globals())``, which fills the defaults and raises a
``ValueError`` naming any bad parameter. The README's parameter tables are generated from the
same specifications (``python -m dtbook.specs``), and a test keeps them in step.
"""

from __future__ import annotations

import ast
import difflib
import math
import os
import pathlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd

from .report import COUNTED_KINDS, TableSummary, VerificationTable
from .sweep import SCHEDULER_ENV
from dtcore.validate import check_int, check_real

REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
SCALES = ("quick", "full")
Kind = Literal["int", "real", "bool", "str", "int_list", "real_list", "str_list"]
#: The first line of the cell papermill injects after a notebook's ``parameters`` cell.
PAPERMILL_HEADER = "# Parameters"

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
                "int_list": "list of integers", "real_list": "list of reals", "str_list": "list of names"}[self.kind]
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


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def injected_parameters(values: Mapping[str, Any]) -> list[str]:
    """The names papermill passed to a running notebook, read from IPython's input history.

    Papermill injects its parameters as a cell whose first line is ``# Parameters``, executed
    just before the cell that resolves them; ``values`` is that notebook's ``globals()``, whose
    ``In`` lists the source of every cell run so far. The names assigned in the latest such cell
    are returned (none outside IPython, or when papermill passed nothing).
    """
    history = values.get("In")
    if not isinstance(history, list):
        return []
    for source in reversed(history):
        if isinstance(source, str) and source.lstrip().split("\n", 1)[0].rstrip() == PAPERMILL_HEADER:
            try:
                body = ast.parse(source).body
            except SyntaxError:
                return []
            names: list[str] = []
            for node in body:
                targets = node.targets if isinstance(node, ast.Assign) else (
                    [node.target] if isinstance(node, ast.AnnAssign) else [])
                names += [t.id for t in targets if isinstance(t, ast.Name)]
            return names
    return []


def closest_name(name: str, known: Sequence[str]) -> str | None:
    """The known name a misspelt ``name`` most likely meant: one it begins or that begins it
    (``eta`` -> ``eta_grid``), else the most similar (``sead`` -> ``seed``), else None."""
    lowered = {k.lower(): k for k in known}
    low = name.lower()
    prefixed = [k for k in lowered if min(len(k), len(low)) >= 3 and (k.startswith(low) or low.startswith(k))]
    if prefixed:
        return lowered[max(prefixed, key=lambda k: (difflib.SequenceMatcher(None, low, k).ratio(), k))]
    close = difflib.get_close_matches(low, list(lowered), n=1, cutoff=0.6)
    return lowered[close[0]] if close else None


@dataclass(frozen=True)
class ParameterSpec:
    """A page's parameters: ``scale`` always, ``common`` (``seed`` and ``save_results`` unless told
    otherwise) and its own ``params``.

    ``runs_locally`` says why a page that never calls :func:`dtbook.sweep.sweep` does not use
    a Dask cluster (shown in its README table); it stays empty for the pages whose long loops are
    sweeps.
    """

    chapter: str
    title: str
    params: tuple[Param, ...]
    # Constraints between parameters: each raises ValueError naming a parameter, after resolution.
    checks: tuple[Callable[[Mapping[str, Any]], None], ...] = ()
    common: tuple[Param, ...] = field(default=(
        Param("seed", "int", 0, help="seed of every random draw (a `SeedSequence` per task)", low=0),
        Param("save_results", "bool", False, help="write the tidy results as CSV under `results/<chapter>/`"),
    ))
    runs_locally: str = ""

    def names(self) -> list[str]:
        """Every parameter name, in the order of the README table."""
        leading = [p.name for p in self.common if p.name == "seed"]
        trailing = [p.name for p in self.common if p.name != "seed"]
        return [*leading, "scale", *[p.name for p in self.params], *trailing]

    def check_names(self, passed: Sequence[str]) -> None:
        """``ValueError`` for any passed name that is not a parameter, with the closest known one."""
        known = self.names()
        unknown = [name for name in passed if name not in known]
        if not unknown:
            return
        sentences = []
        for name in unknown:
            close = closest_name(name, known)
            sentences.append(f"unknown parameter {name!r}" + (f"; did you mean {close!r}?" if close else "."))
        raise ValueError(" ".join(sentences) + f" The parameters of {self.chapter} are {', '.join(known)}.")

    def resolve(self, values: Mapping[str, Any], *, passed: Sequence[str] | None = None) -> dict[str, Any]:
        """Validate the chapter's parameters (e.g. ``globals()`` of the notebook) and fill defaults.

        ``None`` means the default of the chosen ``scale``. Returns a dict with every parameter.
        ``passed`` are the names the caller passed (default: those papermill injected, see
        :func:`injected_parameters`); a name that is not a parameter of this page raises a
        ``ValueError`` naming it and the closest known name, before any value is checked.
        """
        self.check_names(injected_parameters(values) if passed is None else passed)
        if self.runs_locally and os.environ.get(SCHEDULER_ENV):
            print(f"{SCHEDULER_ENV} is set, but this page runs on the local cores only: {self.runs_locally}")
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

    def run_summary(self, resolved: Mapping[str, Any]) -> str:
        """Markdown for the page: the scale and seed it was run at, and every parameter's value in a
        collapsed dropdown, with a pointer to the full-scale run."""
        rows = []
        for name in self.names():
            if name in ("scale", "save_results"):
                continue
            param = next(p for p in (*self.common, *self.params) if p.name == name)
            value = resolved.get(name)
            shown = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
            rows.append(f"| `{name}` | {_cell(shown)} | {_cell(param.help)} |")
        return "\n".join([
            f"This page was run at **{resolved.get('scale')} scale**, seed {resolved.get('seed', 0)} "
            "({doc}`appendix_reproducing` gives both scales and how to re-run a page).",
            "",
            ":::{dropdown} The parameters of this run",
            "| parameter | value | meaning (results by the paper's numbering) |", "|---|---|---|", *rows, ":::"])

    def show_run(self, resolved: Mapping[str, Any]) -> None:
        """Display :meth:`run_summary` in a notebook (Markdown, so MyST renders the dropdown)."""
        from IPython.display import display
        display({"text/markdown": self.run_summary(resolved),
                 "text/plain": f"{resolved.get('scale')} scale, seed {resolved.get('seed', 0)}"}, raw=True)

    def parameter_cell(self) -> str:
        """The source of the notebook's ``parameters`` cell, generated from this specification.

        One line per parameter, ``name = default  # help; allowed values`` (papermill's
        ``--help-notebook`` shows the default and the comment): the value itself where the default
        does not depend on the scale, else ``None`` with both defaults in the comment. No comment
        holds ``=``: papermill skips a line with two. ``python -m dtbook.specs --update-notebooks``
        writes it into every notebook; ``tests/test_chapter.py`` keeps them equal.
        """
        lines: list[str] = []  # one line a parameter: a cell within the 30-line rule; each None line says its defaults
        by_name = {p.name: p for p in (*self.common, *self.params)}
        for name in self.names():
            if name == "scale":
                lines.append(f'scale = "quick"  # the size of every experiment: "quick" or "full"')
                continue
            p = by_name[name]
            if p.full is _SAME:
                value, note = repr(p.quick), ""
            else:
                value, note = "None", f"; None: {p.quick!r} at quick scale, {p.full!r} at full"
            lines.append(f"{name} = {value}  # {p.help}; {p.describe()}{note}".replace("`", ""))
        for line in lines:
            comment = line.split("#", 1)[1]
            if "=" in comment:
                raise ValueError(f"the parameters cell of {self.chapter} must have no '=' in a comment "
                                 f"(papermill skips such a line), got {line!r}")
        return "\n".join(lines)

    def markdown(self) -> str:
        """The README table of this chapter's parameters."""
        lines = [f"**{self.title}** (`book/{self.chapter}.ipynb`)", ""]
        if self.runs_locally:
            lines += [f"Runs on the local cores only, whatever `{SCHEDULER_ENV}` says: {self.runs_locally}", ""]
        lines += ["| parameter | allowed | quick | full | meaning |", "|---|---|---|---|---|",
                  "| `scale` | `\"quick\"` or `\"full\"` | `'quick'` | | the size of every experiment; the two "
                  "columns give each parameter's default at that scale |"]
        seed = [p for p in self.common if p.name == "seed"]
        for p in (*seed, *self.params, *(p for p in self.common if p.name != "seed")):
            full = "" if p.full is _SAME else _show_default(p.full)
            cells = [f"`{p.name}`", p.describe(), _show_default(p.quick), full or "same", p.help]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
        return "\n".join(lines)


def book_root(start: str | os.PathLike[str] | None = None) -> pathlib.Path | None:
    """The clone whose book is being run: the nearest folder holding ``_toc.yml`` and ``book/``,
    from ``start`` (default: the working directory, ``book/`` under papermill's ``--cwd book``) up."""
    here = pathlib.Path(start if start is not None else pathlib.Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file() and (folder / "book").is_dir():
            return folder
    return None


def results_dir(chapter: str) -> pathlib.Path:
    """``results/<chapter>/`` of the clone being run (:func:`book_root`), whatever ``dtcore`` it imports.

    Outside any clone: the clone ``dtcore`` was installed from when it is one (an editable
    install), else ``results/<chapter>/`` under the working directory.
    """
    root = book_root() or (REPO_ROOT if (REPO_ROOT / "_toc.yml").is_file() else pathlib.Path.cwd())
    return root / "results" / chapter


def save_results(chapter: str, frames: Mapping[str, pd.DataFrame]) -> pathlib.Path:
    """Write each DataFrame as ``results/<chapter>/<name>.csv``; return the directory."""
    out = results_dir(chapter)
    out.mkdir(parents=True, exist_ok=True)
    for name, df in frames.items():
        df.to_csv(out / f"{name}.csv", index=False)
    return out


def verdict_rows_path(chapter: str) -> pathlib.Path:
    """Where a chapter leaves its verification rows for the book's ledger pages
    (``_build/verdicts/<chapter>.json`` under the book's root; ``scripts/ledger_pages.py`` reads them)."""
    root = book_root() or (REPO_ROOT if (REPO_ROOT / "_toc.yml").is_file() else pathlib.Path.cwd())
    return root / "_build" / "verdicts" / f"{chapter}.json"


def write_verdict_rows(chapter: str, table: VerificationTable, *, seconds: float) -> pathlib.Path:
    """Write the table's rows, each naming its ledger entry, and the page's run time, for the book's
    ledger pages and its appendix on reproducing the runs."""
    import json

    path = verdict_rows_path(chapter)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = json.loads(table.frame().to_json(orient="records", force_ascii=False))
    path.write_text(json.dumps({"page": chapter, "seconds": seconds, "rows": rows}, ensure_ascii=False),
                    encoding="utf-8")
    return path


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

    table.assign_ledger(chapter)
    write_verdict_rows(chapter, table, seconds=time.perf_counter() - started)
    summary = table.summary()
    summary.show()
    glue(f"{glue_prefix}_verification_summary", summary.sentence, display=False)
    counts = summary.counts
    glue(f"{glue_prefix}_checks_counted", sum(counts[kind] for kind in COUNTED_KINDS), display=False)
    glue(f"{glue_prefix}_theorem_checks", counts["theorem"], display=False)
    glue(f"{glue_prefix}_runtime", time.perf_counter() - started, display=False)
    if save:
        save_results(chapter, {**results, "verification": table.frame()})
    return summary


#: The papers' names as a table header shows them (an underscore reads as a leftover column name).
HEADER_SYMBOLS = {"TopDown_G": "TopDown𝒢", "T_t": "Tₜ", "a_R": "a(R)", "p_i": "pᵢ", "Delta_opt": "Δₒₚₜ",
                  "D_opt": "Dₒₚₜ", "Inf^mu_i": "Infᵢ under μ", "e_i": "eᵢ"}


#: The one look of a result table: padded cells, numbers right-aligned in tabular figures, a caption
#: above the table in the text's style.
TABLE_STYLES = [
    {"selector": "", "props": [("border-collapse", "collapse"), ("margin", "0.6em 0 1em 0"), ("font-size", "0.9em")]},
    {"selector": "caption", "props": [("caption-side", "top"), ("text-align", "left"), ("padding", "0 0 0.4em 0"),
                                      ("font-style", "italic")]},
    {"selector": "th", "props": [("padding", "4px 12px"), ("border-bottom", "1.5px solid #444"),
                                 ("text-align", "left"), ("vertical-align", "bottom")]},
    {"selector": "td", "props": [("padding", "4px 12px"), ("border-bottom", "1px solid #ddd")]},
]


def _maths_header(text: str) -> str:
    """A header's ``$...$`` as ``\\(...\\)``, which MathJax typesets inside a cell's output."""
    import re

    return re.sub(r"\$([^$]+)\$", r"\\(\1\\)", text)


def styled_table(frame: pd.DataFrame, headers: Mapping[str, str] | None = None, *, digits: int = 4,
                 caption: str = "") -> Any:
    """``frame`` as a page shows it: readable headers (``headers`` renames columns, ``$...$`` typeset;
    then the papers' symbols of :data:`HEADER_SYMBOLS`), whole numbers without decimals and with
    thousands separators, other numbers to ``digits`` places, numbers right-aligned, yes/no for
    booleans, a dash for missing values, padded cells, no index, and ``caption`` above the table."""
    import numpy as np

    def header(name: object) -> str:
        text = (headers or {}).get(str(name), str(name))
        for raw, symbol in HEADER_SYMBOLS.items():
            text = text.replace(raw, symbol)
        return _maths_header(text)

    out = frame.reset_index() if any(name is not None for name in frame.index.names) else frame
    shown = out.rename(columns=header)
    formats: dict[object, Any] = {}
    numeric: list[object] = []
    for column in shown.columns:
        values = shown[column]
        if pd.api.types.is_bool_dtype(values):
            formats[column] = lambda v: "yes" if v else "no"
        elif pd.api.types.is_numeric_dtype(values):
            numeric.append(column)
            finite = values.to_numpy(dtype=np.float64)
            finite = finite[np.isfinite(finite)]
            whole = finite.size == 0 or bool(np.all(finite == np.round(finite)))
            formats[column] = "{:,.0f}" if whole else f"{{:.{digits}f}}"
    styler = shown.style.format(formats, na_rep="—").hide(axis="index").set_table_styles(TABLE_STYLES)
    if numeric:
        styler = styler.set_properties(subset=numeric, **{"text-align": "right",
                                                          "font-variant-numeric": "tabular-nums"})
    if caption:
        styler = styler.set_caption(caption)
    return styler

