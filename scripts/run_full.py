"""Run every chapter at the papers' scale and summarise the run (``make full``).

Each chapter notebook of ``_toc.yml`` is executed by :func:`dtbook.run.run_chapter` at
``scale="full"`` and ``save_results=True``, one after the other, from ``book/``, with a progress
line per section of the page (its title, the time so far and the wall time of this chapter's last
run in the output directory as the estimate; a bar on a terminal). ``results/<chapter>/`` is deleted before its chapter runs, so
that only this run's CSVs are kept. For each chapter the script keeps

- the executed notebook, ``_build/full/<chapter>.ipynb``, and its log ``<chapter>.log`` (every
  cell's output);
- the CSVs the chapter wrote under ``results/<chapter>/``, copied to ``_build/full/<chapter>/``;
- its wall time, its verification table counted by kind, and what failed: the rows that do not
  hold, or the error a cell raised (``ValueError: folds must be ...``) with the cell, its section
  and its first line of code (the figure or row it builds);
- its parameters and its backend (joblib, the Dask scheduler, or the local cores of a page that
  does not sweep), kept with its row when other chapters are re-run.

``--dry-run`` prints each chapter's parameters and backend and runs nothing.

Then it writes ``_build/full/summary.md`` and ``summary.json``: date, machine, Dask scheduler (if
any), and one row per chapter with the commit it ran on. With ``--chapters``, the rows of the other
chapters are kept from the summary already in the output directory (same scale), so a chapter can
be re-run after a fix without re-running the book; each row keeps its own commit and date. It exits non-zero if any chapter failed (a cell
raised, which includes the closing ``assert_all`` of a failed check) or if a verification table
has a counted row that does not hold.

Sweeps go through ``dtbook.sweep``, so with ``DTCORE_DASK_SCHEDULER=tcp://HOST:8786`` set the
chapters run on that Dask cluster; the variable reaches the kernels through the environment.

    .venv/bin/python scripts/run_full.py                      # every chapter, full scale
    .venv/bin/python scripts/run_full.py --scale quick --chapters 01_top_down_guarantees -p seed 7

A parameter given with ``-p NAME VALUE`` or ``-y YAML`` goes to every chapter whose specification
(``dtbook.specs``) has it; one that no chapter of the run has stops the script at once.
"""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, TextIO

import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this clone's dtcore, whatever else the environment has

from dtbook.report import failing_rows  # noqa: E402
from dtbook.run import cell_sections, run_chapter, toc_chapters  # noqa: E402
from dtbook.specs import SPECS  # noqa: E402


def git_commit(repo: Path = REPO) -> str:
    """HEAD's hash, with ``+dirty`` when tracked files differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo,
                               capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def parse_parameters(pairs: list[list[str]], documents: list[str]) -> dict[str, Any]:
    """``-p NAME VALUE`` pairs (typed as papermill types them) and ``-y YAML`` documents, as one dict."""
    parameters: dict[str, Any] = {}
    for document in documents:
        loaded = yaml.safe_load(document)
        if not isinstance(loaded, dict):
            raise SystemExit(f"run_full.py: -y must give a YAML mapping such as 'sizes: [4, 8]', got {document!r}")
        parameters.update(loaded)
    for name, value in pairs:
        parameters[name] = papermill_value(value)
    return parameters


def papermill_value(text: str) -> Any:
    """A ``-p`` value as papermill's command line reads it: True, False, None, int, float, else the text."""
    special = {"True": True, "False": False, "None": None}
    if text in special:
        return special[text]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def count_checks(table: pd.DataFrame) -> dict[str, Any]:
    """Rows of a chapter's verification table by kind, and the rows that do not pass (the one pass
    rule, :func:`dtbook.report.failing_rows`)."""
    failing = failing_rows(table)
    return {
        "by_kind": {str(k): int(v) for k, v in table["kind"].value_counts().sort_index().items()},
        "rows": int(len(table)),
        "failing": [f"{r['result']}: {r['quantity']}" for _, r in failing.iterrows()],
    }


def chapter_parameters(chapter: str, scale: str, given: dict[str, Any]) -> dict[str, Any]:
    """The papermill parameters of one chapter: the scale, ``save_results`` and those of ``given``
    that its specification knows (a chapter without one gets them all)."""
    spec = SPECS.get(chapter)
    known = set(spec.names()) if spec is not None else {"scale", "save_results", *given}
    parameters = {"scale": scale, "save_results": True, **given}
    return {name: value for name, value in parameters.items() if name in known}


def check_parameters(chapters: list[str], given: dict[str, Any]) -> None:
    """Refuse a parameter that none of ``chapters`` knows, naming the closest known name."""
    known = sorted({name for c in chapters for name in (SPECS[c].names() if c in SPECS else given)})
    for name in given:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; the chapters' parameters are {', '.join(known)}"
            raise SystemExit(f"run_full.py: unknown parameter {name!r} for {', '.join(chapters)}{hint}")


class CellProgress:
    """Shows where a chapter is: a line per section (its title, the time so far and the last run's
    wall time of this chapter as the estimate); a bar on a terminal, with the section as its label.

    ``sections`` are the section titles of papermill's cells (:func:`dtbook.run.cell_sections`,
    with the injected parameters cell counted); ``estimate`` the last run's seconds, if any.
    """

    def __init__(self, chapter: str, stream: TextIO = sys.stdout, sections: list[str] | None = None,
                 estimate: float | None = None) -> None:
        self.chapter, self.stream = chapter, stream
        self.sections, self.estimate = sections or [], estimate
        self.bar: Any = None
        self.section: str | None = None

    def _when(self, seconds: float) -> str:
        if self.estimate is None:
            return f"{minutes(seconds)} elapsed, no earlier run to estimate from"
        return f"{minutes(seconds)} elapsed of about {minutes(self.estimate)} (the last run)"

    def __call__(self, cell: int, cells: int, seconds: float) -> None:
        section = self.sections[cell - 1] if 0 < cell <= len(self.sections) else f"cell {cell}"
        if not self.stream.isatty():
            if section != self.section:
                print(f"{self.chapter}: {section} (cell {cell}/{cells}), {self._when(seconds)}",
                      file=self.stream, flush=True)
            self.section = section
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=cells, desc=self.chapter, unit="cell", file=self.stream, leave=False)
        self.section = section
        self.bar.set_postfix_str(f"{section[:40]}; {self._when(seconds)}", refresh=False)
        self.bar.update(cell - 1 - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def papermill_sections(chapter: str, injected: bool) -> list[str]:
    """The section title of each cell as papermill numbers them (its parameters cell, when it
    injects one, right after the cell tagged ``parameters``)."""
    notebook = json.loads((REPO / "book" / f"{chapter}.ipynb").read_text())
    sections = cell_sections(notebook)
    if injected:
        tagged = [i for i, c in enumerate(notebook["cells"]) if "parameters" in c.get("metadata", {}).get("tags", [])]
        if tagged:
            sections.insert(tagged[0] + 1, sections[tagged[0]])
    return sections


def backend(chapter: str) -> str:
    """Where a chapter's sweeps ran: the Dask scheduler of DTCORE_DASK_SCHEDULER, else joblib."""
    spec = SPECS.get(chapter)
    if spec is not None and spec.runs_locally:
        return "local cores (the page does not sweep)"
    scheduler = os.environ.get("DTCORE_DASK_SCHEDULER", "")
    return f"Dask at {scheduler}" if scheduler else "joblib on the local cores"


def last_seconds(out: Path, scale: str, chapter: str) -> float | None:
    """The wall time of the last run of ``chapter`` at ``scale`` recorded in ``out/summary.json``."""
    try:
        old = json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    rows = [r for r in old.get("chapters", []) if r.get("chapter") == chapter and r.get("scale", old.get("scale")) == scale]
    return float(rows[0]["seconds"]) if rows and rows[0].get("passed") else None


def run_one(chapter: str, scale: str, out: Path, given: dict[str, Any], timeout: int) -> dict[str, Any]:
    """Execute one chapter (:func:`dtbook.run.run_chapter`); collect its notebook, CSVs and checks.

    ``results/<chapter>/`` is deleted first, so that only this run's CSVs are copied to ``out``.
    """
    results = REPO / "results" / chapter  # where the kernel, run from REPO/book, writes (results_dir)
    if results.exists():
        shutil.rmtree(results)
    commit, date = git_commit(), dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    parameters = chapter_parameters(chapter, scale, given)
    progress = CellProgress(chapter, sections=papermill_sections(chapter, bool(parameters)),
                            estimate=last_seconds(out, scale, chapter))
    try:
        run = run_chapter(chapter, out / f"{chapter}.ipynb", parameters=parameters,
                          book_dir=REPO / "book", pythonpath=[REPO], cell_timeout=timeout, progress=progress)
    finally:
        progress.close()
    row: dict[str, Any] = {"chapter": chapter, "passed": run.passed, "seconds": round(run.seconds, 1),
                           "log": run.log.name, "commit": commit, "started": date, "scale": scale,
                           "parameters": parameters, "backend": backend(chapter)}
    if results.is_dir():
        shutil.copytree(results, out / chapter, dirs_exist_ok=True)
        row["csv_files"] = sorted(p.name for p in results.glob("*.csv"))
    row["checks"] = count_checks(run.verification) if run.verification is not None else None
    if run.error:
        row["error"] = run.error + (f" (in {run.error_where})" if run.error_where else "")
    return row


def minutes(seconds: float) -> str:
    whole = round(seconds)  # round first: 599.6 s is "10 min 00 s", not "9 min 60 s"
    return f"{whole // 60} min {whole % 60:02d} s"


def merge_rows(out: Path, scale: str, rows: list[dict[str, Any]], order: list[str]) -> list[dict[str, Any]]:
    """This run's rows plus, for chapters it did not run, the rows of the summary already in ``out``
    (if it was run at the same scale), in ``order``; an older row without its own commit or date
    takes its summary's."""
    previous = out / "summary.json"
    kept: dict[str, dict[str, Any]] = {}
    if previous.is_file():
        old = json.loads(previous.read_text())
        if old.get("scale") == scale:
            for row in old.get("chapters", []):
                scheduler = old.get("dask_scheduler", "")
                kept[row["chapter"]] = {
                    "commit": old.get("commit", "unknown"), "started": old.get("started", ""),
                    "parameters": chapter_parameters(row["chapter"], scale, old.get("extra_parameters") or {}),
                    "backend": f"Dask at {scheduler}" if scheduler else "joblib on the local cores", **row}
    kept.update({row["chapter"]: row for row in rows})
    rank = {c: i for i, c in enumerate(order)}
    return sorted(kept.values(), key=lambda row: rank.get(row["chapter"], len(rank)))


def what_failed(row: dict[str, Any]) -> str:
    """The cause of a chapter's failure in one line: the rows that do not hold, else the error."""
    checks = row.get("checks") or {}
    causes = []
    if checks.get("failing"):
        causes.append("rows not holding: " + "; ".join(checks["failing"]))
    error = row.get("error")
    if isinstance(error, list):  # summaries written before the error was one line
        error = " ".join(error)
    if error and not (checks.get("failing") and error.startswith("AssertionError: theorem checks failed")):
        causes.append(error)
    return " — ".join(causes) if causes else ("none" if row.get("passed") else "see the log")


def _cell(text: str, width: int = 300) -> str:
    text = " ".join(text.split())
    return (text if len(text) <= width else text[: width - 1] + "…").replace("|", "\\|")


def _parameters_text(row: dict[str, Any]) -> str:
    parameters = row.get("parameters")
    shown = ", ".join(f"{k}={v!r}" for k, v in parameters.items()) if parameters is not None else "not recorded"
    return f"{shown}; {row.get('backend', 'backend not recorded')}"


def write_summary(out: Path, meta: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """Write summary.json and summary.md; return the markdown."""
    commits = sorted({row.get("commit", meta["commit"]) for row in rows})
    (out / "summary.json").write_text(json.dumps({**meta, "chapters": rows}, indent=1))
    ran = meta.get("ran")
    if not ran or ran == meta.get("all_chapters"):
        what = "every chapter"
    else:
        what = ", ".join(ran)
        kept = [row["chapter"] for row in rows if row["chapter"] not in ran]
        if kept:
            what += f" (the rows of {', '.join(kept)} kept from earlier runs)"
    lines = [
        f"# Run of {what} at scale={meta['scale']!r}",
        "",
        f"- commit: `{commits[0]}`" if len(commits) == 1 else
        f"- commits: {', '.join(f'`{c}`' for c in commits)} (per chapter below)",
        f"- date (UTC) of the last invocation: {meta['started']} to {meta['finished']}",
        f"- machine: {meta['machine']}",
        f"- Dask scheduler of the last invocation: {meta['dask_scheduler'] or 'none (joblib on local cores)'}"
        " (each chapter's backend is in its row)",
        f"- total wall time: {minutes(sum(row['seconds'] for row in rows))} (the chapters' wall times added up)",
        "",
        "| chapter | result | wall time | checks by kind | what failed | parameters, backend | commit, start (UTC) |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        checks = row.get("checks")
        kinds = ", ".join(f"{k} {v}" for k, v in checks["by_kind"].items()) if checks else "no verification table"
        lines.append(f"| {row['chapter']} | {'passed' if row['passed'] else 'FAILED'} | "
                     f"{minutes(row['seconds'])} | {kinds} | {_cell(what_failed(row))} | "
                     f"{_cell(_parameters_text(row))} | "
                     f"`{row.get('commit', meta['commit'])[:10]}`, {row.get('started', meta['started'])} |")
    text = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", default="full", choices=["quick", "full"])
    parser.add_argument("--chapters", nargs="*", help="notebook stems (default: every chapter of _toc.yml)")
    parser.add_argument("--out", type=Path, default=REPO / "_build" / "full")
    parser.add_argument("--timeout", type=int, default=4 * 3600, help="per-cell limit in seconds")
    parser.add_argument("-p", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                        help="papermill parameter (papermill's -p: True/False/None, numbers, else text), "
                             "passed to every chapter that has it")
    parser.add_argument("--dry-run", action="store_true",
                        help="say what would run (each chapter, its parameters, its backend) and stop")
    parser.add_argument("-y", action="append", default=[], metavar="YAML",
                        help="papermill parameters as YAML (for lists: -y 'sizes: [4, 8]'), likewise")
    args = parser.parse_args(argv)

    chapters = args.chapters or toc_chapters()
    unknown = [c for c in chapters if not (REPO / "book" / f"{c}.ipynb").is_file()]
    if unknown:
        parser.error(f"--chapters: no notebook book/<name>.ipynb for {unknown}")
    given = parse_parameters(args.p, args.y)
    check_parameters(chapters, given)
    if args.dry_run:
        for chapter in chapters:
            passed_on = chapter_parameters(chapter, args.scale, given)
            print(f"{chapter}: would run with {', '.join(f'{k}={v!r}' for k, v in passed_on.items())} "
                  f"(backend: {backend(chapter)})")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)

    started = dt.datetime.now(dt.timezone.utc)
    rows = []
    for chapter in chapters:
        passed_on = chapter_parameters(chapter, args.scale, given)
        print(f"{chapter}: running with {', '.join(f'{k}={v!r}' for k, v in passed_on.items())} "
              f"(backend: {backend(chapter)}); "
              f"log in {args.out / (chapter + '.log')}", flush=True)
        row = run_one(chapter, args.scale, args.out, given, args.timeout)
        cause = "" if row["passed"] else f": {what_failed(row)}"
        print(f"{chapter}: {'passed' if row['passed'] else 'FAILED'} in {minutes(row['seconds'])}{cause}", flush=True)
        rows.append(row)
    finished = dt.datetime.now(dt.timezone.utc)
    meta = {
        "scale": args.scale,
        "commit": git_commit(),
        "started": started.isoformat(timespec="seconds"),
        "finished": finished.isoformat(timespec="seconds"),
        "seconds": round((finished - started).total_seconds(), 1),
        "machine": f"{platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "dask_scheduler": os.environ.get("DTCORE_DASK_SCHEDULER", ""),
        "extra_parameters": given,
        "ran": chapters,
        "all_chapters": toc_chapters(),
    }
    ran = rows
    if args.chapters:
        rows = merge_rows(args.out, args.scale, rows, toc_chapters())
    print(write_summary(args.out, meta, rows))
    print(f"notebooks, CSVs and summary under {args.out}")
    return 0 if all(row["passed"] for row in ran) else 1


if __name__ == "__main__":
    sys.exit(main())
