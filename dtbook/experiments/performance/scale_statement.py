"""The scale statement (issue 29): how FIND's and ID3's time and memory grow with rows, features and depth,
with fitted exponents.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dtcore.validate import check_int
from ... import figures


#: The grids of the scale statement, by scale. FIND: for each depth d, its rows m and features n,
#: chosen so that the fastest point takes milliseconds (well above the timer and FIND's fixed cost per
#: call, which would bend a power law) and the slowest seconds at most; ID3: its rows and features.
#: Every point is timed ``repetitions`` times and the fastest run kept (the run least disturbed by
#: the machine's other load).
SCALE_GRIDS = {
    "quick": {"find": {2: ((20_000, 80_000), (16, 32)), 3: ((10_000, 40_000), (12, 24)), 4: ((2_000, 8_000), (10, 20))},
              "id3_rows": (5_000, 20_000), "id3_features": (16, 32), "repetitions": 3},
    "full": {"find": {2: ((20_000, 40_000, 80_000, 160_000), (16, 32, 64)),
                      3: ((10_000, 20_000, 40_000, 80_000), (16, 24, 32)),
                      4: ((2_500, 5_000, 10_000, 20_000), (8, 16, 32)),
                      5: ((2_500, 5_000, 10_000, 20_000), (8, 16, 32))},
             "id3_rows": (10_000, 100_000, 1_000_000), "id3_features": (16, 32, 64), "repetitions": 5},
}


#: A fit of log time (or log memory) with R² below this is called poor on the page.
POOR_FIT_R2 = 0.9


def scale_statement(rng: np.random.Generator, *, scale: str,
                    repetitions: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """FIND and ID3 timed (fastest of ``repetitions``, default the grid's; BLAS and OpenMP pinned to one
    thread) and traced (peak memory, ``tracemalloc``) on the :data:`SCALE_GRIDS` grid of ``scale``,
    with the fitted exponents of time ~ m^a n^b and memory ~ m^a n^b per algorithm (and depth).

    FIND: uniform points labelled by a random depth-d tree, 10% label noise; ID3: the 7-junta with
    20% label noise (:mod:`dtbook.experiments.performance.users`). Returns (grid, fits); the
    fits have one row per algorithm and depth, ``seconds_at_1000x10`` and ``MB_at_1000x10`` being the
    fitted values at m = 1,000, n = 10, ``time_r2`` and ``memory_r2`` the fits' R² on the log scale."""
    from threadpoolctl import threadpool_limits

    from .users import find_scale_grid, fit_exponents, id3_scale_grid

    if scale not in SCALE_GRIDS:
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    g = SCALE_GRIDS[scale]
    repetitions = g["repetitions"] if repetitions is None else check_int("repetitions", repetitions, 1)
    with threadpool_limits(1):
        parts = [find_scale_grid(rows=rows, features=features, depths=(d,), repetitions=repetitions, rng=rng)
                 for d, (rows, features) in g["find"].items()]
        parts.append(id3_scale_grid(rows=g["id3_rows"], features=g["id3_features"], repetitions=repetitions, rng=rng))
    grid = pd.concat(parts, ignore_index=True)
    grid["label"] = [a if pd.isna(d) else f"{a} d={int(d)}" for a, d in zip(grid["algorithm"], grid["d"])]
    grid["peak_MB"] = grid["peak_bytes"] / 2**20
    fits = []
    for label, part in grid.groupby("label", sort=False):
        time_fit = fit_exponents(part).iloc[0]
        memory_fit = fit_exponents(part, value="peak_MB").iloc[0]
        fits.append({"label": label, "time_rows": time_fit["rows_exponent"], "time_features": time_fit["features_exponent"],
                     "seconds_at_1000x10": time_fit["at_1000x10"], "time_r2": time_fit["r2_log"],
                     "memory_rows": memory_fit["rows_exponent"], "memory_features": memory_fit["features_exponent"],
                     "MB_at_1000x10": memory_fit["at_1000x10"], "memory_r2": memory_fit["r2_log"],
                     "points": int(time_fit["points"]), "fastest_s": float(part["seconds"].min()),
                     "largest": f"{int(part['m'].max()):,} × {int(part['n'].max())}"})
    return grid, pd.DataFrame(fits)


def scale_note(fits: pd.DataFrame) -> str:
    """The fitted exponents of :func:`scale_statement` as sentences, each with its fit's R², and which
    fits are poor (R² below :data:`POOR_FIT_R2`)."""
    each = "; ".join(f"{r.label}: time a = {r.time_rows:.2f}, b = {r.time_features:.2f} (R² {r.time_r2:.2f}), "
                     f"memory a = {r.memory_rows:.2f}, b = {r.memory_features:.2f} (R² {r.memory_r2:.2f})"
                     for r in fits.itertuples())
    poor = [f"{r.label} ({kind}, R² {r2:.2f})" for r in fits.itertuples()
            for kind, r2 in (("time", r.time_r2), ("memory", r.memory_r2)) if r2 < POOR_FIT_R2]
    if poor:
        verdict = (f"Poor fits (R² below {POOR_FIT_R2:g}: a power law describes them badly, so predict from "
                   f"the table's nearest measured point instead): " + "; ".join(poor) + ".")
    else:
        verdict = f"Every fit has R² of at least {POOR_FIT_R2:g}."
    return f"The fitted exponents, each with its fit's R² on the log scale: {each}. {verdict}"


def exponents_style(fits: pd.DataFrame) -> object:
    """The fitted exponents of :func:`scale_statement`, readable: time ≈ t₀ (m/1000)^a (n/10)^b, each
    fit with its R²."""
    shown = fits.assign(seconds_at_1000x10=fits["seconds_at_1000x10"] * 1e3, fastest_s=fits["fastest_s"] * 1e3)
    shown = shown.rename(columns={"label": "Algorithm", "time_rows": "time: a (rows)",
                                  "time_features": "time: b (features)", "seconds_at_1000x10": "t₀ (ms)",
                                  "time_r2": "R² (log time)", "memory_rows": "memory: a", "memory_features": "memory: b",
                                  "MB_at_1000x10": "M₀ (MB)", "memory_r2": "R² (log memory)",
                                  "fastest_s": "fastest point (ms)", "largest": "largest m × n"})
    shown = shown.drop(columns=["points"])
    return (shown.style.format({"time: a (rows)": "{:.2f}", "time: b (features)": "{:.2f}", "t₀ (ms)": _three_digits,
                                "R² (log time)": "{:.2f}", "memory: a": "{:.2f}", "memory: b": "{:.2f}",
                                "M₀ (MB)": _three_digits, "R² (log memory)": "{:.2f}",
                                "fastest point (ms)": _three_digits}).hide(axis="index"))


def _three_digits(value: float) -> str:
    # three significant digits, never in exponent notation (0.000123, 12.3, 12,300)
    if not np.isfinite(value) or value == 0:
        return f"{value:g}"
    decimals = max(0, 2 - int(np.floor(np.log10(abs(value)))))
    return f"{round(value, decimals):,.{decimals}f}"


def scale_statement_figure(grid: pd.DataFrame, fits: pd.DataFrame) -> plt.Figure:
    """Log-log: seconds against rows m (at each algorithm's largest n) and against features n (at its
    largest m), one line per algorithm and depth, the fitted exponents in a legend below."""
    fig, axes = figures.figure(2, 2, height=5.6, sharey="row", gridspec_kw={"height_ratios": [5, 1.6]})
    (by_rows, by_features), below = axes[0], axes[1]
    for ax in below:            # the bottom row becomes one axes across the figure, for the legend
        ax.remove()
    legend_ax = fig.add_subplot(axes[0, 0].get_gridspec()[1, :])
    legend_ax.axis("off")
    exponent = fits.set_index("label")
    for (label, part), color in zip(grid.groupby("label", sort=False), figures.OKABE_ITO):
        rows_line = part[part["n"] == part["n"].max()].sort_values("m")
        features_line = part[part["m"] == part["m"].max()].sort_values("n")
        by_rows.loglog(rows_line["m"], rows_line["seconds"], "o-", color=color,
                       label=(f"{label}: a = {exponent.loc[label, 'time_rows']:.2f}, "
                              f"b = {exponent.loc[label, 'time_features']:.2f} (R² {exponent.loc[label, 'time_r2']:.2f})"))
        by_features.loglog(features_line["n"], features_line["seconds"], "s-", color=color)
    by_rows.set(xlabel="rows m (at the largest n)", ylabel="seconds (best of the runs, pinned)",
                title="Time against rows")
    by_features.set(xlabel="features n (at the largest m)", title="Time against features")
    for ax, ticks in ((by_rows, _log_ticks(grid["m"])), (by_features, sorted(int(v) for v in grid["n"].unique()))):
        ax.set_xticks(ticks, [_short_count(v) for v in ticks])
        ax.xaxis.set_minor_locator(plt.NullLocator())
        ax.yaxis.set_minor_formatter(plt.NullFormatter())
    # one legend for both panels, below them (the lines cross the panels wherever the data put them)
    legend_ax.legend(*by_rows.get_legend_handles_labels(), loc="lower center", ncol=1, frameon=False)
    return fig


def _log_ticks(values: pd.Series) -> list[int]:
    # 1-2-5 ticks inside the values' range, thinned to the decades when there are more than five
    low, high = float(values.min()), float(values.max())
    ticks = [v * 10**k for k in range(0, 10) for v in (1, 2, 5) if low <= v * 10**k <= high]
    return [t for t in ticks if str(t).startswith("1")] if len(ticks) > 5 else ticks


def _short_count(value: float) -> str:
    # 2000 -> "2k", 1000000 -> "1M": tick labels that fit side by side
    value = int(value)
    if value >= 10**6 and value % 10**5 == 0:
        return f"{value / 10**6:g}M"
    if value >= 1000 and value % 100 == 0:
        return f"{value / 1000:g}k"
    return str(value)
