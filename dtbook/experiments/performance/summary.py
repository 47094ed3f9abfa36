"""The appendix's summary: the ratios table, its figure and glue, and the verification rows (outputs agree,
memory, labels, speed targets).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import figures
from ...report import VerificationTable
from .common import COMPUTED_BY, QUANTITY, THREADS


def _ratio_text(ratio: float, low: float, high: float) -> str:
    return "—" if pd.isna(ratio) else f"{ratio:.2g} ({low:.2g}–{high:.2g})"


def ratios_style(ratios: pd.DataFrame) -> object:
    """The ratios table as the page shows it, narrow enough for a phone: one row per benchmark with the
    pinned ratio and its per-round range, the ratio at default threads, the distance to the floor,
    the target (of the ratio, or of the floor distance where the row has a floor), whether it is met,
    and whether the outputs agree. :func:`seconds_style` gives the times behind the ratios."""
    shown = pd.DataFrame({
        "Benchmark": [f"{b}, {s}" for b, s in zip(ratios["benchmark"], ratios["size"])],
        "Ratio, pinned (range)": [_ratio_text(r, lo, hi) for r, lo, hi in
                                  zip(ratios["ratio_pinned"], ratios["ratio_min_pinned"], ratios["ratio_max_pinned"])],
        "Ratio, default threads": ratios["ratio_default"],
        "Distance to the floor": ratios["floor_distance_pinned"],
        "Target": [("—" if pd.isna(t) else (f"≤ {t:g}" + (" (floor)" if of == "floor distance" else "")))
                   for t, of in zip(ratios["target"], ratios["target_of"])],
        "Met": ratios["target met (pinned)"],
        "Same result": ratios["same_result"],
    })
    return (shown.style.format({"Ratio, default threads": "{:.2g}", "Distance to the floor": "{:.1f}"}, na_rep="—")
            .hide(axis="index"))


def seconds_style(ratios: pd.DataFrame) -> object:
    """The median seconds behind the ratios table: dtcore, its peer and the floor, pinned and at default
    threads."""
    shown = pd.DataFrame({"Benchmark": [f"{b}, {s}" for b, s in zip(ratios["benchmark"], ratios["size"])],
                          "dtcore, pinned": ratios["dtcore_s_pinned"], "peer, pinned": ratios["peer_s_pinned"],
                          "floor, pinned": ratios["floor_s_pinned"], "dtcore, default": ratios["dtcore_s_default"],
                          "peer, default": ratios["peer_s_default"]})
    numeric = [c for c in shown.columns if c != "Benchmark"]
    return shown.style.format({c: _seconds for c in numeric}, na_rep="—").hide(axis="index")


def _seconds(value: float) -> str:
    return "—" if pd.isna(value) else (f"{value * 1e3:.3g} ms" if value < 1 else f"{value:.3g} s")


#: Code names of the benchmarks' labels, in words.
READER_WORDS = {"make_classification": "synthetic (scikit-learn)", "breast_cancer": "breast cancer",
                "top_down": "TopDown", "TopDown_G": "TopDown$_G$", "build_top_down_dt": "BuildTopDownDT",
                "local_learner": "LocalLearner", "fit_transform": "fit", "n_thresholds": "cuts"}


def reader_text(text: str) -> str:
    """A benchmark's label with its code names in words (:data:`READER_WORDS`)."""
    for code, words in READER_WORDS.items():
        text = text.replace(code, words)
    return text


def ratios_figure(ratios: pd.DataFrame) -> plt.Figure:
    """dtcore / peer time ratios of every benchmark with a peer, both thread settings, with the targets."""
    paired = ratios[ratios["ratio_pinned"].notna()].reset_index(drop=True)
    fig, ax = figures.figure(1, height=min(12.0, 0.55 * len(paired) + 2.4))
    ypos = np.arange(len(paired))
    for k, (setting, color) in enumerate(zip(THREADS, figures.OKABE_ITO[:2])):
        r = paired[f"ratio_{setting}"].to_numpy(float)
        err = np.vstack([r - paired[f"ratio_min_{setting}"].to_numpy(float),
                         paired[f"ratio_max_{setting}"].to_numpy(float) - r])
        ax.barh(ypos + (k - 0.5) * 0.38, r, height=0.38, xerr=err, color=color, capsize=2,
                label=f"ours / peer, {setting} threads (median; bar: range over rounds)")
    has_target = (paired["target"].notna() & (paired["target_of"] == "ratio")).to_numpy()
    ax.scatter(paired.loc[has_target, "target"], ypos[has_target], marker="|", s=300, color=figures.OKABE_ITO[3], zorder=3,
               label="target ratio (pinned, this scale)")
    ax.axvline(1.0, color="k", lw=0.8, ls="--")
    ax.set_xscale("log")
    decades = np.log10([float(np.nanmin(paired[[f"ratio_min_{s}" for s in THREADS]].to_numpy(float))),
                        float(np.nanmax(paired[[f"ratio_max_{s}" for s in THREADS]].to_numpy(float))) * 3])
    ticks = [10.0**k for k in range(int(np.floor(decades[0])), int(np.ceil(decades[1])) + 1)]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_formatter(plt.NullFormatter())   # decade labels only: no "4×10⁰" crowding
    ax.set_xlim(ticks[0], ticks[-1])
    ax.set_yticks(ypos, [reader_text(f"{b}\n{s.split(' (')[0]}") for b, s in zip(paired["benchmark"], paired["size"])])
    ax.invert_yaxis()
    ax.set(xlabel="time ratio ours / peer (log scale; below 1: ours is faster)")
    figures.legend(ax, "below", ncol=1)
    return fig


def ratio_glue(ratios: pd.DataFrame, *, scale: str) -> dict[str, str]:
    """The closing note's sentences: every ratio measured, the speed targets missed (judged at this
    ``scale``, against its targets) and :func:`targets_note`."""
    paired = ratios[ratios["ratio_pinned"].notna()]
    summary = "; ".join(f"{b} ({s}): {rp:.3g} pinned, {rd:.3g} default threads" for b, s, rp, rd in
                        zip(paired["benchmark"], paired["size"], paired["ratio_pinned"], paired["ratio_default"]))
    missed = ratios[ratios["target met (pinned)"] == "no"]
    if missed.empty:
        missed_text = "none"
    else:
        missed_text = "; ".join(f"{b} ({s}): {of} {r:.3g} against {t:g}" for b, s, of, r, t in
                                zip(missed["benchmark"], missed["size"], missed["target_of"],
                                    missed["judged (pinned)"], missed["target"]))
    return {"app_summary": summary, "app_missed": missed_text, "app_targets_note": targets_note(ratios, scale=scale)}


def targets_note(ratios: pd.DataFrame, *, scale: str) -> str:
    """Whether this run's speed targets (those of its ``scale``) are met, as a sentence."""
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    judged = int((ratios["target met (pinned)"] != "—").sum())
    met = int((ratios["target met (pinned)"] == "yes").sum())
    which = ("the quick-scale speed targets (looser than the full-scale ones: fixed per-call costs weigh more on "
             "small workloads)" if scale == "quick" else "the full-scale speed targets")
    if met == judged:
        return f"All {judged} of {which} are met in this run."
    return f"{met} of {judged} of {which} are met in this run; the profiles of the missed ones are below."


def _matching(table: Mapping[str, Any], benchmark: str) -> Any:
    # The entry of the last key the benchmark's name starts with (QUANTITY, COMPUTED_BY).
    return [value for key, value in table.items() if benchmark.startswith(key)][-1]


def check_agreement(table: VerificationTable, ratios: pd.DataFrame) -> None:
    """A row per benchmark: dtcore's output against its peer's, or against a second computation of its
    own (deviation 0). An identity when two independent computations are compared (:data:`COMPUTED_BY`);
    an observation when both sides are runs of one function under other conditions, which only shows
    that the run is reproducible."""
    for _, row in ratios.iterrows():
        quantity = _matching(QUANTITY, row["benchmark"])
        computed_by = _matching(COMPUTED_BY, row["benchmark"])
        result = f"{row['benchmark']} ({row['size']})"
        if computed_by is None:
            table.observation(result, quantity, row["deviation"], 0.0,
                              why="one dtcore function run twice (other thread counts, traced): a fault in it "
                                  f"moves both runs alike, so this shows reproducibility only ({row['check']})")
        else:
            table.identity(result, quantity, row["deviation"], 0.0, computed_by=computed_by, note=row["check"])


def check_memory(table: VerificationTable, memory: pd.DataFrame) -> None:
    """An observation per traced TopDown_G run: its tree against the untraced one's (the same function,
    so a fault moves both; the row shows that tracing changes nothing)."""
    for _, row in memory.iterrows():
        table.observation(f"TopDown_G peak memory (m={int(row['m'])})",
                          "leaves in the traced tree but not the timed one", float(row["leaves_differ"]), 0.0,
                          why="top_down run with and without tracemalloc: a fault in it moves both runs alike, "
                              "so the row shows only that tracing changes nothing")


def check_targets(table: VerificationTable, ratios: pd.DataFrame, scale_rows: pd.DataFrame) -> None:
    """The speed and memory targets, as observations: targets we set ourselves, never asserted."""
    for _, row in ratios[ratios["target"].notna()].iterrows():
        quantity = ("time ratio dtcore / floor, pinned (speed target)" if row["target_of"] == "floor distance"
                    else "time ratio dtcore / peer, pinned (speed target)")
        table.observation(f"{row['benchmark']} ({row['size']})", quantity, row["judged (pinned)"], row["target"],
                          why="a speed target we set ourselves, not a theorem; times vary with the machine's load; "
                              "times are never asserted")
    if not scale_rows.empty:
        table.observation("TopDown_G, scale", "peak memory / input bytes (target 1.2)",
                          float(scale_rows["peak_over_input"].iloc[0]), 1.2,
                          why="a memory target we set ourselves, not a theorem")


def assert_outputs_agree(ratios: pd.DataFrame, *, n_rows: int) -> str:
    """Raise ``AssertionError`` if any benchmark's output differs from its peer's; else say how many agreed."""
    differing = ratios.loc[ratios["same_result"] == "no", ["benchmark", "size", "check"]]
    assert differing.empty, differing
    compared = int((ratios["same_result"] == "yes").sum())
    alone = len(ratios) - compared
    return (f"All {n_rows} rows hold; the outputs agree in all {compared} compared benchmark rows "
            f"and {alone} {'row is' if alone == 1 else 'rows are'} self-consistent.")
