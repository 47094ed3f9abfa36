"""The hardest members of [BDM20] Theorems 1 and 2's classes (book Theorems 5.1 and 5.3): a local
search over the (α, c)-members of a parity and the smoothing centres of a junta for the lowest
zero-error rate, each member's fresh curve against m, and the sample sizes the theorems ask for."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from pandas.io.formats.style import Styler

from ...chapter import styled_table

from dtcore import bounds
from dtcore.cube import ProductDistribution
from dtcore.functions import junta, junta_tree, parity_table, random_junta
from dtcore.id3 import id3
from dtcore.smoothed import alpha_c_distribution, smoothed_distribution, smoothing_centre
from dtcore.tree import tree_disagreement
from dtcore.validate import check_int, check_rng
from ... import figures
from ...report import VerificationTable
from .common import ZERO_ERROR, m_at, power_of_ten, paper_names


#: The two classes searched: (α, c)-distributions labelled by a parity (Theorem 1) and smoothed
#: (α, c)-distributions labelled by a junta (Theorem 2).
MEMBER_CLASSES = ("parity, (alpha,c)", "junta, smoothed")


def search_budget(*, restarts: int, sweeps: int, runs: int) -> dict[str, int]:
    """The budget of :func:`search_hardest_member` (the page's ``search_*`` parameters): random restarts
    (the first ones start at the named boundary members), sweeps of coordinate moves per restart, and
    runs per evaluation (the same runs' seeds for every member: common random numbers, so two members
    are compared on the same draws)."""
    return {"restarts": check_int("restarts", restarts, 1), "sweeps": check_int("sweeps", sweeps, 0),
            "runs": check_int("runs", runs, 1)}


def curve_caps(*, parity: int, smoothed: int, m_top: int) -> dict[str, int]:
    """Largest m of the hardest member's curve per class (the page's ``m_cap_*`` parameters), at least
    the grid's largest ``m_top``: the grid is extended by factors of about 3 until 90% of the runs are
    exact or the cap is passed (:func:`member_curve`)."""
    return {MEMBER_CLASSES[0]: max(check_int("parity", parity, 1), int(m_top)),
            MEMBER_CLASSES[1]: max(check_int("smoothed", smoothed, 1), int(m_top))}


_EDGE = 1e-9  # boundary members sit this far inside the open class


def member_candidates(kind: str, *, alpha: float, c: float) -> np.ndarray:
    """The values one coordinate takes in the local search, the class's boundary points: for
    (α, c)-distributions p = α and 1/2 − c (each ``_EDGE`` inside the open class; 1/2 + c and 1 − α
    are the same members up to complementing x_i, which changes neither a parity's difficulty nor
    any gain); for smoothed ones the centre p̂ = α + c and 1/2 (p̂ = 1/2: the uniform distribution
    smoothed; 1 − α − c is α + c with x_i complemented, which maps a junta to another junta)."""
    if kind not in MEMBER_CLASSES:
        raise ValueError(f"kind must be one of {MEMBER_CLASSES}, got {kind!r}")
    if kind == MEMBER_CLASSES[0]:
        return np.array([alpha + _EDGE, 0.5 - c - _EDGE])
    return np.array([alpha + c + _EDGE, 0.5])


def member_start(kind: str, restart: int, k: int, *, rng: np.random.Generator, alpha: float,
                 c: float) -> tuple[str, np.ndarray, np.ndarray]:
    """The starting member of a restart: ``(name, theta, table)``. ``theta`` holds the k relevant
    coordinates' p (Theorem 1) or centres p̂ (Theorem 2) and, last, the one value shared by the
    irrelevant coordinates; ``table`` is the target on J (the parity, or for Theorem 2 the parity at
    restart 0 and a random junta after). Theorem 1 starts from the inner, outer and corner members,
    then random ones; Theorem 2 from the centres 1/2, edge and random."""
    if kind == MEMBER_CLASSES[0]:
        names = ("inner", "outer", "corner")
        name = names[restart] if restart < len(names) else "random"
        theta = alpha_c_distribution(k + 1, alpha, c, rng=rng, member=name).p
        return name, theta, parity_table(k)
    names = ("1/2", "edge")
    name = names[restart] if restart < len(names) else "random"
    theta = smoothing_centre(k + 1, alpha, c, name, rng=rng)
    table = parity_table(k) if restart == 0 else random_junta(k, k, rng=rng)[1]
    return name + (" centre, parity" if restart == 0 else " centre, random junta"), theta, table


def member_zero_error(kind: str, theta: np.ndarray, table: np.ndarray, m: int, *,
                      rngs: Sequence[np.random.Generator], n: int, alpha: float, c: float, impurity: str) -> np.ndarray:
    """Whether ID3's tree has zero exact error, one run per generator of ``rngs``, on the member
    ``theta`` (:func:`member_start`) with target ``table`` on a random J of size k (J drawn per run)."""
    k = int(np.log2(table.size))
    out = np.empty(len(rngs), dtype=bool)
    for r, rng in enumerate(rngs):  # one ID3 run per generator; NumPy inside
        J = np.sort(rng.choice(n, size=k, replace=False))
        p = np.full(n, theta[-1])
        p[J] = theta[:k]
        D = (ProductDistribution(p) if kind == MEMBER_CLASSES[0] else smoothed_distribution(p, alpha, c, rng=rng))
        X = D.sample(m, rng=rng)
        tree = id3(X, junta(X, J, table), impurity=impurity).tree
        out[r] = tree_disagreement(tree, junta_tree(n, J, table), D) <= ZERO_ERROR
    return out


def search_hardest_member(kind: str, *, k: int, n: int, m: int, alpha: float, c: float, impurity: str,
                          restarts: int, sweeps: int, runs: int,
                          rng: np.random.Generator) -> tuple[pd.DataFrame, dict[str, object]]:
    """Random restarts plus coordinate-wise local search for the member of Theorem 1's or 2's class
    (``kind``) with the lowest zero-error rate at sample size ``m``.

    Each restart starts at :func:`member_start` and, ``sweeps`` times, moves each coordinate of
    theta (the k relevant ones, then the shared irrelevant one) to each boundary point of
    :func:`member_candidates`, keeping a move when the rate over ``runs`` runs drops (the same
    ``runs`` seeds for every evaluation). Budget: at most restarts × (1 + sweeps (k + 1) × candidates)
    evaluations of ``runs`` ID3 runs. Returns ``(evaluations, worst)``: every evaluation, and the
    worst member (``theta``, ``table``, ``start``, ``rate``, ``evaluations``), with the root ``base`` of
    the runs' seeds and the ``tables`` of every restart (so that :func:`boundary_rates` can score other
    members on the same runs).
    """
    k = check_int("k", k, 1, n)
    restarts, sweeps, runs = check_int("restarts", restarts, 1), check_int("sweeps", sweeps, 0), check_int("runs", runs, 1)
    rng = check_rng(rng)
    base = int(rng.integers(2**62))
    cands = member_candidates(kind, alpha=alpha, c=c)
    rows: list[dict[str, object]] = []

    def rate(theta: np.ndarray, table: np.ndarray) -> float:
        rngs = [np.random.default_rng([base, r]) for r in range(runs)]   # common random numbers
        value = float(member_zero_error(kind, theta, table, m, rngs=rngs, n=n, alpha=alpha, c=c, impurity=impurity).mean())
        rows.append({"class": kind, "k": k, "m": m, "restart": restart, "evaluation": len(rows), "rate": value,
                     "theta": " ".join(f"{v:.3f}" for v in theta)})
        return value

    worst: dict[str, object] = {"rate": math.inf}
    tables = []
    for restart in range(restarts):
        start, theta, table = member_start(kind, restart, k, rng=rng, alpha=alpha, c=c)
        tables.append(table)
        current = rate(theta, table)
        for _ in range(sweeps):
            for i in range(k + 1):
                for v in cands:
                    if v == theta[i]:
                        continue
                    trial = theta.copy()
                    trial[i] = v
                    value = rate(trial, table)
                    if value < current:
                        theta, current = trial, value
        if current < worst["rate"]:
            worst = {"theta": theta, "table": table, "start": start, "rate": current}
    worst.update(evaluations=len(rows), base=base, tables=tables)
    return pd.DataFrame(rows), worst


def boundary_members(kind: str, k: int, *, alpha: float, c: float) -> np.ndarray:
    """Every member of the class's boundary grid, written from the class's definition (not from the
    search's :func:`member_candidates`): each of the k relevant coordinates and the shared irrelevant
    one at one of the two ends of its admissible interval, a hair (``_EDGE``) inside it — p = α or
    1/2 − c for (α, c)-distributions, the centre p̂ = α + c or 1/2 for smoothed ones (the other ends are
    the same members with x_i complemented). Shape (2^(k+1), k + 1), in lexicographic order."""
    if kind not in MEMBER_CLASSES:
        raise ValueError(f"kind must be one of {MEMBER_CLASSES}, got {kind!r}")
    k = check_int("k", k, 1, 16)
    ends = (alpha + _EDGE, 0.5 - c - _EDGE) if kind == MEMBER_CLASSES[0] else (alpha + c + _EDGE, 0.5)
    bits = (np.arange(2 ** (k + 1))[:, None] >> np.arange(k, -1, -1)[None, :]) & 1
    return np.where(bits == 1, ends[1], ends[0])


def reference_member(kind: str, k: int, *, alpha: float, c: float) -> tuple[str, np.ndarray, np.ndarray]:
    """The named member the search must beat, ``(name, theta, table)``: for (α, c)-distributions the
    parity with every p_i at α (the outer corner, whose rarest cell of J has probability α^k); for
    smoothed ones the parity with every centre at 1/2 (Kearns' uniform distribution, smoothed)."""
    k = check_int("k", k, 1, 16)
    table = np.asarray([bin(x).count("1") % 2 for x in range(2**k)], dtype=np.uint8)   # the parity, afresh
    if kind == MEMBER_CLASSES[0]:
        return "parity, every p_i = alpha", np.full(k + 1, alpha + _EDGE), table
    if kind == MEMBER_CLASSES[1]:
        return "parity, every centre 1/2", np.full(k + 1, 0.5), table
    raise ValueError(f"kind must be one of {MEMBER_CLASSES}, got {kind!r}")


def boundary_rates(kind: str, thetas: np.ndarray, table: np.ndarray, *, base: int, runs: int, m: int, n: int,
                   alpha: float, c: float, impurity: str) -> np.ndarray:
    """The zero-error rate of each member ``thetas[j]`` (target ``table``) on the runs the search used:
    run r draws from ``default_rng([base, r])`` (:func:`search_hardest_member`'s common random numbers)."""
    out = np.empty(len(thetas))
    for j, theta in enumerate(np.asarray(thetas, dtype=np.float64)):   # one member per pass; ID3 runs inside
        rngs = [np.random.default_rng([base, r]) for r in range(runs)]
        out[j] = member_zero_error(kind, theta, np.asarray(table), m, rngs=rngs, n=n, alpha=alpha, c=c,
                                   impurity=impurity).mean()
    return out


def search_guard(kind: str, worst: dict[str, object], *, k: int, m: int, n: int, runs: int, alpha: float,
                 c: float, impurity: str, exhaustive: bool) -> dict[str, object]:
    """What the search must beat, on its own runs (:func:`boundary_rates`): the rate of
    :func:`reference_member`, and with ``exhaustive`` the least rate over every member of
    :func:`boundary_members` under every restart's target (the exhaustive optimum of the boundary
    grid, 2^(k+1) members per target)."""
    name, theta, table = reference_member(kind, k, alpha=alpha, c=c)
    common = dict(base=int(worst["base"]), runs=runs, m=m, n=n, alpha=alpha, c=c, impurity=impurity)
    row: dict[str, object] = {"class": kind, "k": k, "m probe": m, "runs": runs, "rate found": float(worst["rate"]),
                              "reference": name,
                              "reference rate": float(boundary_rates(kind, theta[None], table, **common)[0]),
                              "grid members": math.nan, "grid min": math.nan, "grid argmin": ""}
    if exhaustive:
        grid = boundary_members(kind, k, alpha=alpha, c=c)
        tables = {"".join(map(str, np.asarray(t, dtype=int))): np.asarray(t) for t in worst["tables"]}
        best, where = math.inf, ""
        for text, tab in tables.items():
            rates = boundary_rates(kind, grid, tab, **common)
            j = int(np.argmin(rates))
            if rates[j] < best:
                best, where = float(rates[j]), f"p = ({', '.join(f'{v:.3f}' for v in grid[j])}), f~ = {text}"
        row.update({"grid members": len(grid) * len(tables), "grid min": best, "grid argmin": where})
    return row


def extended_grid(m_grid: Sequence[int], m_cap: int) -> list[int]:
    """``m_grid`` followed by m's about 3 times apart (×3, ×10/3 alternately, as 10⁴, 3·10⁴, 10⁵)
    up to ``m_cap``."""
    out = [int(m) for m in m_grid]
    while out[-1] * 3 <= m_cap:
        out.append(out[-1] * 3 if str(out[-1]).startswith("1") else out[-1] * 10 // 3)
    return out


def member_curve(kind: str, worst: dict[str, object], *, k: int, n: int, m_grid: Sequence[int], m_cap: int,
                 reps: int, alpha: float, c: float, impurity: str, rng: np.random.Generator) -> pd.DataFrame:
    """Zero-error rate of the worst member on fresh runs (``reps`` per m) along ``m_grid`` extended
    up to ``m_cap`` (:func:`extended_grid`), stopping at the first m where 90% of the runs are exact."""
    rng = check_rng(rng)
    rows = []
    for m in extended_grid(m_grid, m_cap):
        rngs = [np.random.default_rng(int(s)) for s in rng.integers(2**62, size=reps)]
        zero = member_zero_error(kind, np.asarray(worst["theta"]), np.asarray(worst["table"]), m, rngs=rngs, n=n,
                                 alpha=alpha, c=c, impurity=impurity)
        rows.append({"class": kind, "k": k, "m": m, "zero_loss": float(zero.mean()), "runs": reps})
        if zero.mean() >= 0.9 and m >= max(m_grid):
            break
    return pd.DataFrame(rows)


def hardest_members(kind: str, *, ks: Sequence[int], n: int, m_probe: dict[int, int], m_grid: Sequence[int],
                    m_cap: int, reps: int, alpha: float, c: float, impurity: str, budget: dict[str, int],
                    rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """:func:`search_hardest_member` for each k at the sample size ``m_probe[k]``, then
    :func:`member_curve` of the worst member found. Returns ``(evaluations, worst, curves, guards)``:
    ``worst`` has one row per k with the member, its search rate, its m90 on the fresh curve
    (inf if not reached by ``m_cap``) and the largest m run; ``guards`` one row per k of
    :func:`search_guard` (the exhaustive boundary grid at the smallest k only)."""
    rng = check_rng(rng)
    evaluations, worst_rows, curves, guards = [], [], [], []
    for k in ks:
        ev, w = search_hardest_member(kind, k=k, n=n, m=m_probe[k], alpha=alpha, c=c, impurity=impurity,
                                      rng=rng, **budget)
        guards.append(search_guard(kind, w, k=k, m=m_probe[k], n=n, runs=budget["runs"], alpha=alpha, c=c,
                                   impurity=impurity, exhaustive=k == min(ks)))
        curve = member_curve(kind, w, k=k, n=n, m_grid=m_grid, m_cap=m_cap, reps=reps, alpha=alpha, c=c,
                             impurity=impurity, rng=rng)
        evaluations.append(ev)
        curves.append(curve)
        theta = np.asarray(w["theta"])
        worst_rows.append({"class": kind, "k": k, "start": w["start"], "m probe": m_probe[k],
                           "rate at m probe (search)": w["rate"], "evaluations": w["evaluations"],
                           "relevant": ", ".join(f"{v:.3f}" for v in theta[:k]), "irrelevant": float(theta[-1]),
                           "table": "".join(str(int(b)) for b in np.asarray(w["table"])),
                           "m90": m_at(curve), "largest m run": int(curve.m.max()),
                           "rate at largest m": float(curve.zero_loss.iloc[-1])})
    return (pd.concat(evaluations, ignore_index=True), pd.DataFrame(worst_rows),
            pd.concat(curves, ignore_index=True), pd.DataFrame(guards))


def probe_sizes(rates: pd.DataFrame, *, ks: Sequence[int], m_top: int) -> dict[int, int]:
    """Per k, the sample size at which the search compares members: the smallest grid m at which
    random members reach 90% exact runs (``rates``: the k panel), or ``m_top`` if none does."""
    out = {}
    for k in ks:
        m90 = m_at(rates[(rates.panel == "k") & (rates.k == k)])
        out[int(k)] = int(m90) if math.isfinite(m90) else int(m_top)
    return out


def growth_in_k(worst: pd.DataFrame) -> tuple[float, bool]:
    """Measured growth of m90 per unit of k, (m90(k_max) / m90(k_min))^(1/(k_max − k_min)), and
    whether it is exact (True) or a lower bound (False: the largest k is not learned by 90% of runs
    up to the largest m run, which then stands in for its m90). nan if fewer than two k's."""
    if len(worst) < 2 or not math.isfinite(worst.loc[worst.k.idxmin()].m90):
        return math.nan, False
    lo, hi = worst.loc[worst.k.idxmin()], worst.loc[worst.k.idxmax()]
    exact = bool(math.isfinite(hi.m90))
    top = hi.m90 if exact else float(hi["largest m run"])
    return float((top / lo.m90) ** (1 / (hi.k - lo.k))), exact


def theorem_growth_in_k(sizes: Sequence[float], ks: Sequence[int]) -> float:
    """The same growth factor for a theorem's sample sizes ``sizes`` at ``ks``."""
    ks = list(ks)
    if len(ks) < 2:
        return math.nan
    return float((sizes[-1] / sizes[0]) ** (1 / (ks[-1] - ks[0])))


def member_sizes(worst: pd.DataFrame, *, beta: float, gamma: float, alpha: float, c: float, n: int) -> pd.DataFrame:
    """``worst`` (:func:`hardest_members`) with the sample sizes the theorem asks for at its k
    (hidden constants 1): for parities, Theorem 5.1 as printed (paper's Theorem 10, δ = 0.1) and as
    Theorem 5.2 with Lemma 5.2's ε gives it; for smoothed juntas, Theorem 5.3 as printed with B = 1
    and as its proof's union bound gives it (δ1 = δ2 = 0.05)."""
    out = worst.copy()
    parity = out["class"] == MEMBER_CLASSES[0]
    printed, derived = [], []
    for kind, k in zip(out["class"], out.k.astype(int)):
        if kind == MEMBER_CLASSES[0]:
            printed.append(bounds.bdm20_theorem10_samples(beta, gamma, alpha, c, k, n, 0.1))
            derived.append(bounds.bdm20_theorem10_samples(beta, gamma, alpha, c, k, n, 0.1, as_printed=False))
        else:
            printed.append(bounds.bdm20_theorem12_samples(beta, gamma, alpha, c, k, n, 0.05, 0.05))
            derived.append(bounds.bdm20_theorem12_union_samples(beta, gamma, alpha, c, k, n, 0.05, 0.05))
    out["theorem asks (printed)"] = printed
    out["theorem asks (proof)"] = derived
    out["theorem"] = np.where(parity, "Theorem 5.1", "Theorem 5.3")
    return out


def _search_text(r: pd.Series, budget: dict[str, int]) -> str:
    return (f"{r.start} start; p_J = ({r.relevant}), irrelevant p = {r.irrelevant:.3f}"
            + ("" if r["class"] == MEMBER_CLASSES[0] else f", f~ = {r.table}")
            + f"; search: {budget['restarts']} restarts + {budget['sweeps']} sweep(s) of moves to the class's "
              f"boundary points, {budget['runs']} runs per evaluation at m = {int(r['m probe']):,} "
              f"({int(r.evaluations)} evaluations)")


def check_hardest_members(table: VerificationTable, sizes: pd.DataFrame, *, gamma: float, impurity: str,
                          budget: dict[str, int]) -> None:
    """Theorems 5.1 and 5.3 at the hardest member found (:func:`member_sizes`): per class and k, the
    m at which 90% of fresh runs are exact against the m the theorem asks for (an observation: no
    sample this machine draws comes near it), and the growth of m90 in k against the theorem's."""
    for r in sizes.to_dict("records"):
        r = pd.Series(r)
        result, box = (("Theorem 5.1 (paper's Theorems 1, 10)", "thm-id3-1") if r["class"] == MEMBER_CLASSES[0]
                       else ("Theorem 5.3 (paper's Theorems 2, 12)", "thm-id3-2"))
        reached = math.isfinite(r.m90)
        quantity = (f"m at which 90% of runs reach zero error, hardest member found, k={r.k}" if reached else
                    f"largest m run, where {r['rate at largest m']:.2f} < 90% of runs reach zero error, hardest "
                    f"member found, k={r.k}")
        asks = r["theorem asks (printed)"]
        if math.isfinite(gamma):
            why = (f"the theorem asks for {power_of_ten(asks)} samples (printed, constant 1; its proof gives "
                   f"{power_of_ten(r['theorem asks (proof)'])}), beyond any sample drawn here; the hardest member "
                   + (f"found is learned from m = {int(r.m90):,}" if reached else
                      f"found is not learned by 90% of runs up to m = {int(r['largest m run']):,}"))
            table.observation(result, quantity, r.m90 if reached else float(r["largest m run"]), asks, box=box,
                              worst_case=_search_text(r, budget), why=why)
        else:
            table.observation(result, quantity, r.m90 if reached else float(r["largest m run"]), box=box,
                              worst_case=_search_text(r, budget),
                              why=f"not applicable for {impurity}: its Lipschitz constant gamma is infinite, so the "
                                  "theorem asks for no finite sample size")
    for kind, g in sizes.groupby("class"):
        measured, exact = growth_in_k(g)
        ks = list(g.k)
        if not math.isfinite(measured) or not math.isfinite(gamma):
            continue
        result, box = (("Theorem 5.1 (paper's Theorems 1, 10)", "thm-id3-1") if kind == MEMBER_CLASSES[0]
                       else ("Theorem 5.3 (paper's Theorems 2, 12)", "thm-id3-2"))
        table.observation(result, f"growth of m90 per unit of k, hardest members found, k={ks[0]}..{ks[-1]}"
                          + ("" if exact else " (a lower bound: the largest k is not learned within the m's run)"),
                          measured, theorem_growth_in_k(list(g["theorem asks (printed)"]), ks), box=box,
                          why="compares shapes: the theorem's sample size is an upper bound up to constants, so its "
                              "growth in k bounds what is needed, not what is measured")


def check_search(table: VerificationTable, guards: pd.DataFrame, *, budget: dict[str, int]) -> None:
    """Two counted identities that guard :func:`search_hardest_member` on one class (issue 36): at the
    smallest k, where the boundary grid can be enumerated, the member found is at least as hard as the
    exhaustive optimum of the grid; at every k of the page, at least as hard as :func:`reference_member`.
    Both compare zero-error rates on the search's own runs (common random numbers), so the comparison is
    exact; a weaker search (a move dropped, a comparison flipped, fewer restarts) that ends on an easier
    member fails them. A local search is not guaranteed to reach either member: the page's budget met
    both at seeds 0, 3 and 7, and a failure at another setting says that the budget is too small for the
    page to call its member "the hardest found" (raise ``search_restarts`` or ``search_sweeps``)."""
    kind = str(guards["class"].iloc[0])
    result, box = (("Theorem 5.1 (paper's Theorems 1, 10)", "thm-id3-1") if kind == MEMBER_CLASSES[0]
                   else ("Theorem 5.3 (paper's Theorems 2, 12)", "thm-id3-2"))
    small = guards[guards["grid members"].notna()].iloc[0]
    excess = max(0.0, float(small["rate found"] - small["grid min"]))
    table.identity(result, f"hardest-member search, {kind}, k={int(small.k)}: zero-error rate of the member found "
                   "minus the least rate over the whole boundary grid (exhaustive), on the search's runs",
                   excess, 0.0, computed_by=(search_hardest_member, boundary_members), box=box,
                   worst_case=f"{int(small['grid members'])} boundary members at m = {int(small['m probe']):,}, "
                              f"{int(small.runs)} runs each; grid optimum {small['grid min']:.3f} at {small['grid argmin']}; "
                              f"found {small['rate found']:.3f}",
                   note=f"the search ({budget['restarts']} restarts, {budget['sweeps']} sweep(s)) must reach the grid's "
                        "optimum or beat it (0 when it does)")
    excess = float(np.maximum(0.0, guards["rate found"] - guards["reference rate"]).max())
    table.identity(result, f"hardest-member search, {kind}: largest excess, over k={int(guards.k.min())}.."
                   f"{int(guards.k.max())}, of the member found's zero-error rate over the named reference's",
                   excess, 0.0, computed_by=(search_hardest_member, reference_member), box=box,
                   worst_case=f"reference: {guards.reference.iloc[0]}; rates found "
                              + ", ".join(f"{v:.3f}" for v in guards["rate found"]) + " against "
                              + ", ".join(f"{v:.3f}" for v in guards["reference rate"]) + " at m = "
                              + ", ".join(f"{int(v):,}" for v in guards["m probe"]),
                   note="the member found must be at least as hard as the reference on the same runs (0 when it is)")


def search_glue(guards: pd.DataFrame, evaluations: pd.DataFrame, *, tag: str) -> dict[str, object]:
    """How much of the class the search saw and what it beat, by glue name (``tag``: thm1 or thm2)."""
    small = guards[guards["grid members"].notna()].iloc[0]
    return {f"ch5_{tag}_grid_k": int(small.k), f"ch5_{tag}_grid_members": int(small["grid members"]),
            f"ch5_{tag}_grid_min": float(small["grid min"]), f"ch5_{tag}_grid_found": float(small["rate found"]),
            f"ch5_{tag}_reference": str(guards.reference.iloc[0]),
            f"ch5_{tag}_reference_rates": ", ".join(f"{v:.3f}" for v in guards["reference rate"]),
            f"ch5_{tag}_found_rates": ", ".join(f"{v:.3f}" for v in guards["rate found"]),
            f"ch5_{tag}_members_seen": int(evaluations.theta.nunique())}


def hardest_table(sizes: pd.DataFrame) -> Styler:
    """The hardest members found, per theorem and k, for the page."""
    show = pd.DataFrame({
        "theorem": sizes.theorem, "k": sizes.k, "search started at": sizes.start,
        "relevant p (Theorem 1) or centres p̂ (Theorem 2)": sizes.relevant, "irrelevant": sizes.irrelevant,
        "searched at m": sizes["m probe"].map(lambda v: f"{int(v):,}"),
        "exact runs there": sizes["rate at m probe (search)"].round(2),
        "m90, fresh runs": [power_of_ten(v) if math.isfinite(v) else f"> {int(top):,}"
                            for v, top in zip(sizes.m90, sizes["largest m run"])],
        "theorem asks (printed)": sizes["theorem asks (printed)"].map(power_of_ten),
        "its proof gives": sizes["theorem asks (proof)"].map(power_of_ten)})
    show["theorem"] = show["theorem"].map(paper_names)
    show["irrelevant"] = show["irrelevant"].map(lambda v: f"{v:.3f}")
    return styled_table(show, digits=2, caption="The hardest members found by the search, per theorem and k: where "
                                                "they sit, and the sample sizes ID3 needs and the theorem asks for")


def hardest_glue(sizes: pd.DataFrame, budget: dict[str, int], *, k_max: int, alpha: float,
                 c: float, with_budget: bool = True) -> dict[str, object]:
    """The numbers the text quotes about the hardest members of the classes in ``sizes``, by glue name;
    ``with_budget=False`` leaves out the search budget and 1/alpha (glued once, with the first class)."""
    values: dict[str, object] = {}
    if with_budget:
        values.update({"ch5_search_restarts": budget["restarts"], "ch5_search_sweeps": budget["sweeps"],
                       "ch5_search_runs": budget["runs"], "ch5_inv_alpha": f"{1 / alpha:.3g}"})
    for tag, kind in (("thm1", MEMBER_CLASSES[0]), ("thm2", MEMBER_CLASSES[1])):
        g = sizes[sizes["class"] == kind]
        if not len(g):
            continue
        top = g[g.k == k_max].iloc[0]
        values[f"ch5_{tag}_worst_start"] = str(top.start)
        values[f"ch5_{tag}_worst_p"] = str(top.relevant)
        values[f"ch5_{tag}_worst_where"] = describe_member(str(top.relevant), kind=kind, alpha=alpha, c=c)
        values[f"ch5_{tag}_worst_probe"] = f"{int(top['m probe']):,}"
        values[f"ch5_{tag}_worst_rate"] = float(top["rate at m probe (search)"])
        values[f"ch5_{tag}_worst_m90"] = (f"{int(top.m90):,}" if math.isfinite(top.m90)
                                          else f"beyond {int(top['largest m run']):,} (at that m, {top['rate at largest m']:.2f} of the runs are exact)")
        values[f"ch5_{tag}_worst_asks"] = power_of_ten(float(top["theorem asks (printed)"]))
        values[f"ch5_{tag}_worst_proof"] = power_of_ten(float(top["theorem asks (proof)"]))
        values[f"ch5_{tag}_evaluations"] = int(g.evaluations.sum())
        measured, exact = growth_in_k(g)
        values[f"ch5_{tag}_growth"] = ("not measurable" if not math.isfinite(measured)
                                       else power_of_ten(measured) if exact else f"at least {power_of_ten(measured)}")
        values[f"ch5_{tag}_growth_theorem"] = power_of_ten(theorem_growth_in_k(list(g["theorem asks (printed)"]), list(g.k)))
    return values


def describe_member(relevant: str, *, kind: str, alpha: float, c: float) -> str:
    """Where the relevant coordinates of a member (:func:`hardest_members`' ``relevant`` text) sit in
    the class, in words: at its outer edge (p near α or 1 − α), its inner edge (|p − 1/2| near c, or
    the centre 1/2 for smoothed members), or inside."""
    p = np.array([float(v) for v in relevant.split(",")])
    if kind == MEMBER_CLASSES[0]:
        outer = np.minimum(p, 1 - p) <= alpha + 0.01
        inner = np.abs(np.abs(p - 0.5) - c) <= 0.01
        parts = [(outer, "at the outer edge (p near α or 1 − α)"), (inner, "at the inner edge (|p − 1/2| near c)")]
    else:
        parts = [(np.abs(p - 0.5) <= 0.01, "centred at 1/2"),
                 (np.minimum(p, 1 - p) <= alpha + c + 0.01, "centred at the edge (p̂ near α + c or 1 − α − c)")]
    k = p.size
    words = [f"{'all' if m.sum() == k else int(m.sum())} of the {k} relevant coordinates {what}"
             for m, what in parts if m.any()]
    rest = k - sum(int(m.sum()) for m, _ in parts)
    if rest > 0:
        words.append(f"{rest} inside the class")
    return "; ".join(words)


def hardest_figure(curves1: pd.DataFrame, rate1: pd.DataFrame, curves2: pd.DataFrame, rate2: pd.DataFrame) -> Figure:
    """Zero-error rate against m of the hardest members found (solid) and of random members (dashed),
    per k: left Theorem 5.1's class, right Theorem 5.3's (dotted: 90%)."""
    from matplotlib.lines import Line2D

    fig, axes = figures.figure(2, height=3.5, sharey=True)
    ks = sorted(set(curves1.k) | set(curves2.k))
    colour = {k: f"C{i}" for i, k in enumerate(ks)}
    for ax, curves, rates, title in ((axes[0], curves1, rate1, "Theorem 5.1: parities, (α, c) class"),
                                     (axes[1], curves2, rate2, "Theorem 5.3: smoothed juntas")):
        random = rates[rates.panel == "k"]
        for k, g in curves.groupby("k"):
            ax.plot(g.m, g.zero_loss, "o-", color=colour[k])
            r = random[random.k == k]
            ax.plot(r.m, r.zero_loss, "s--", color=colour[k], alpha=0.6)
        ax.axhline(0.9, color="k", ls=":", lw=1)
        ax.set(xscale="log", xlabel="sample size m", ylabel="Pr[zero error]", title=title)
    # the colours (k) under the left panel, the line styles (member) under the right one: both panels share them
    figures.legend(axes[0], "below", ncol=len(ks), handles=[Line2D([], [], color=colour[k], lw=2) for k in ks],
                   labels=[f"k = {k}" for k in ks])
    figures.legend(axes[1], "below", ncol=1,
                   handles=[Line2D([], [], color="0.3", ls="-", marker="o"),
                            Line2D([], [], color="0.3", ls="--", marker="s")],
                   labels=["hardest member found", "random members"])
    return fig
