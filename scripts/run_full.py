"""Run every chapter at the papers' scale and summarise the run (``make full``; issue 14, item 7).

Each chapter notebook of ``_toc.yml`` is executed with papermill at ``scale="full"`` and
``save_results=True``, one after the other, from ``book/``. For each chapter the script keeps

- the executed notebook, ``_build/full/<chapter>.ipynb``;
- the CSVs the chapter wrote under ``results/<chapter>/``, copied to ``_build/full/<chapter>/``;
- its wall time, and its verification table (``verification.csv``) counted by kind and status.

Then it writes ``_build/full/summary.md`` and ``summary.json``: date, machine, Dask scheduler (if
any), and one row per chapter with the commit it ran on. With ``--chapters``, the rows of the other
chapters are kept from the summary already in the output directory (same scale), so a chapter can
be re-run after a fix without re-running the book; each row keeps its own commit and date. It exits non-zero if any chapter failed (a cell
raised, which includes the closing ``assert_all`` of a failed check) or if a verification table
has a counted row that does not hold.

Sweeps go through ``dtcore.book.sweep``, so with ``DTCORE_DASK_SCHEDULER=tcp://HOST:8786`` set the
chapters run on that Dask cluster; the variable reaches the kernels through the environment.

    .venv/bin/python scripts/run_full.py                      # every chapter, full scale
    .venv/bin/python scripts/run_full.py --scale quick --chapters 01_top_down_guarantees
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
#: Statuses of a verification row that count as passing (see dtcore.book.report).
PASSING = {"holds", "refuted", "shown", "True", "true"}


def toc_chapters(repo: Path = REPO) -> list[str]:
    """Notebook stems listed in ``_toc.yml``, in book order."""
    toc = yaml.safe_load((repo / "_toc.yml").read_text())
    files: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node:
                files.append(str(node["file"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return [Path(f).name for f in files if (repo / f"{f}.ipynb").is_file()]


def git_commit(repo: Path = REPO) -> str:
    """HEAD's hash, with ``+dirty`` when tracked files differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo,
                               capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def count_checks(verification_csv: Path) -> dict[str, Any]:
    """Rows of a chapter's verification table by kind, and the rows that do not pass."""
    import pandas as pd

    table = pd.read_csv(verification_csv)
    kinds = table["kind"] if "kind" in table else pd.Series(["check"] * len(table))
    if "status" in table:
        status = table["status"].astype(str)
    elif "holds" in table:
        status = table["holds"].map(lambda h: "holds" if str(h) == "True" else "FAILS")
    else:
        status = pd.Series(["?"] * len(table))
    failing = table[~status.isin(PASSING)]
    label = "quantity" if "quantity" in table else table.columns[0]
    return {
        "by_kind": {str(k): int(v) for k, v in kinds.value_counts().sort_index().items()},
        "rows": int(len(table)),
        "failing": [str(q) for q in failing[label]],
    }


def run_chapter(chapter: str, scale: str, out: Path, extra: list[str], timeout: int) -> dict[str, Any]:
    """Execute one chapter with papermill; collect its notebook, CSVs and checks."""
    results = REPO / "results" / chapter
    if results.exists():
        shutil.rmtree(results)  # only this run's CSVs may end up in the summary
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    papermill = Path(sys.executable).with_name("papermill")
    command = [
        str(papermill), str(REPO / "book" / f"{chapter}.ipynb"), str(out / f"{chapter}.ipynb"),
        "--cwd", str(REPO / "book"), "-p", "scale", scale, "-p", "save_results", "True",
        "--execution-timeout", str(timeout), "--no-progress-bar", *extra,
    ]
    log = out / f"{chapter}.log"
    commit, date = git_commit(), dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    start = time.perf_counter()
    with open(log, "w") as stream:
        code = subprocess.run(command, cwd=REPO, env=env, stdout=stream, stderr=subprocess.STDOUT).returncode
    seconds = time.perf_counter() - start
    row: dict[str, Any] = {"chapter": chapter, "passed": code == 0, "seconds": round(seconds, 1), "log": log.name,
                           "commit": commit, "started": date}
    if results.is_dir():
        shutil.copytree(results, out / chapter, dirs_exist_ok=True)
        row["csv_files"] = sorted(p.name for p in results.glob("*.csv"))
    verification = results / "verification.csv"
    if verification.is_file():
        row["checks"] = count_checks(verification)
        if row["checks"]["failing"]:
            row["passed"] = False
    else:
        row["checks"] = None
    if code != 0:
        row["error"] = log.read_text(errors="replace").strip().splitlines()[-1:]
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
                kept[row["chapter"]] = {"commit": old.get("commit", "unknown"), "started": old.get("started", ""), **row}
    kept.update({row["chapter"]: row for row in rows})
    rank = {c: i for i, c in enumerate(order)}
    return sorted(kept.values(), key=lambda row: rank.get(row["chapter"], len(rank)))


def write_summary(out: Path, meta: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """Write summary.json and summary.md; return the markdown."""
    commits = sorted({row.get("commit", meta["commit"]) for row in rows})
    (out / "summary.json").write_text(json.dumps({**meta, "chapters": rows}, indent=1))
    lines = [
        f"# Run of every chapter at scale={meta['scale']!r}",
        "",
        f"- commit: `{commits[0]}`" if len(commits) == 1 else
        f"- commits: {', '.join(f'`{c}`' for c in commits)} (per chapter below)",
        f"- date (UTC) of the last invocation: {meta['started']} to {meta['finished']}",
        f"- machine: {meta['machine']}",
        f"- Dask scheduler: {meta['dask_scheduler'] or 'none (joblib on local cores)'}",
        f"- total wall time: {minutes(sum(row['seconds'] for row in rows))} (the chapters' wall times added up)",
        "",
        "| chapter | result | wall time | checks by kind | rows not passing | commit, start (UTC) |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        checks = row.get("checks")
        kinds = ", ".join(f"{k} {v}" for k, v in checks["by_kind"].items()) if checks else "no verification.csv"
        failing = "; ".join(checks["failing"]) if checks and checks["failing"] else "none"
        lines.append(f"| {row['chapter']} | {'passed' if row['passed'] else 'FAILED'} | "
                     f"{minutes(row['seconds'])} | {kinds} | {failing} | "
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
                        help="extra papermill parameter, passed to every chapter")
    args = parser.parse_args(argv)

    chapters = args.chapters or toc_chapters()
    unknown = [c for c in chapters if not (REPO / "book" / f"{c}.ipynb").is_file()]
    if unknown:
        parser.error(f"--chapters: no notebook book/<name>.ipynb for {unknown}")
    args.out.mkdir(parents=True, exist_ok=True)
    extra = [token for name, value in args.p for token in ("-p", name, value)]

    started = dt.datetime.now(dt.timezone.utc)
    rows = []
    for chapter in chapters:
        print(f"{chapter}: running at scale={args.scale} ...", flush=True)
        row = run_chapter(chapter, args.scale, args.out, extra, args.timeout)
        print(f"{chapter}: {'passed' if row['passed'] else 'FAILED'} in {minutes(row['seconds'])}", flush=True)
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
        "extra_parameters": args.p,
    }
    ran = rows
    if args.chapters:
        rows = merge_rows(args.out, args.scale, rows, toc_chapters())
    print(write_summary(args.out, meta, rows))
    print(f"notebooks, CSVs and summary under {args.out}")
    return 0 if all(row["passed"] for row in ran) else 1


if __name__ == "__main__":
    sys.exit(main())
