"""[BLT21] Theorems 1 and 3 (Sec. 4) at the hardest member found by a search over targets and adversaries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dtcore import bounds
from dtcore.audit.oracles import count_trees
from dtcore.cube import all_points
from dtcore.find import find, population_find
from dtcore.noise import ADVERSARIES, corrupt
from dtcore.stochastic import deterministic_depths, error, mean_table, opt, sample, random_stochastic_tree
from dtcore.tree import DecisionTree
from ...report import VerificationTable
from ...seeds import experiment_streams
from .common import adversary_label, positive_int, theorem_or_observation
from .printed_bounds import printed_gamma


def coins_above_internal_nodes(tree: DecisionTree) -> int:
    """How many coins of ``tree`` have a child that is not a leaf (coins *inside* the tree, not at its leaves)."""
    from dtcore.tree import LEAF, STOCHASTIC

    return sum(1 for node, f in enumerate(tree.feature)
               if f == STOCHASTIC and LEAF not in (tree.feature[tree.child0[node]], tree.feature[tree.child1[node]]))


def hard_target(*, n: int, size: int, n_stochastic: int, query_depth: int, rng: np.random.Generator,
                tries: int = 200) -> DecisionTree:
    """A member of the class of [BLT21] Theorems 1 and 3 where the approximation term is not zero.

    A random stochastic tree of ``size`` leaves and ``n_stochastic`` coins (:func:`random_stochastic_tree`)
    with at least one coin above an internal node and a leaf at query depth exactly ``query_depth``
    (drawn again until both hold, at most ``tries`` times), so that FIND at a smaller depth cannot
    represent round(mu_T) and Lemma 2.1's stacking is needed to remove the coins.
    """
    tries = positive_int("tries", tries)
    if n_stochastic < 1:
        raise ValueError(f"n_stochastic must be >= 1 (a coin inside the tree), got {n_stochastic}")
    for _ in range(tries):   # rejection over whole trees, each drawn vectorised over its splits
        tree = random_stochastic_tree(n, size, n_stochastic, rng=rng, max_depth=query_depth)
        if coins_above_internal_nodes(tree) >= 1 and int(deterministic_depths(tree).max()) == query_depth:
            return tree
    raise ValueError(f"no tree with {size} leaves, {n_stochastic} coins and query depth {query_depth} had a coin "
                     f"inside after {tries} draws; raise size or n_stochastic")


def mutate_target(tree: DecisionTree, rng: np.random.Generator) -> DecisionTree:
    """One local-search step in the class: a copy of ``tree`` with one coin's probability redrawn in
    [0.1, 0.9] or one leaf's label flipped (the shape, hence size and query depth, is kept)."""
    from dtcore.tree import LEAF, STOCHASTIC

    out = tree.copy()
    nodes = [v for v, f in enumerate(out.feature) if f in (LEAF, STOCHASTIC)]
    node = nodes[int(rng.integers(len(nodes)))]
    if out.feature[node] == STOCHASTIC:
        out.branch_prob[node] = float(rng.uniform(0.1, 0.9))
    else:
        out.set_value(node, 1.0 - float(out.value[node]))
    return out


@dataclass(frozen=True)
class TheoremMember:
    """One member of the class of [BLT21] Theorems 1/3: a target, its opt and its best depth-d excess (exact)."""

    target: DecisionTree
    opt: float
    best_excess: float


def theorem_member(target: DecisionTree, depth: int) -> TheoremMember:
    """opt_T and the excess of the best depth-``depth`` tree, both exact on the cube ([BLT21] Corollary 4.1's term)."""
    mu = mean_table(target)
    o = opt(mu)
    return TheoremMember(target=target, opt=o, best_excess=max(0.0, population_find(mu, depth).error - o))


def theorem_epsilon(member: TheoremMember, *, n: int, depth: int, m: int, delta: float) -> float:
    """The ε of [BLT21] Theorems 1/3 at FIND's depth d: the best depth-d tree's excess (Corollary 4.1's
    approximation term, exact) plus Lemma 4.2's 2γ_d at confidence ``delta``."""
    return member.best_excess + 2 * bounds.blt21_lemma42_uniform_deviation(count_trees(n, depth), m, delta)


def evaluate_member(member: TheoremMember, *, X0: np.ndarray, y0: np.ndarray, etas: Sequence[float], depth: int,
                    degree: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """FIND's exact error on one clean sample (Theorem 1) and under every adversary at every η (Theorem 3)."""
    points = all_points(member.target.n)
    mu = mean_table(member.target)
    rows = [{"adversary": "none", "eta": 0.0,
             "error": error(mu, find(X0, y0, depth=depth).tree.predict(points).astype(float))}]
    for eta in etas:
        for adversary in ADVERSARIES:
            c = corrupt(adversary, X0, y0, eta, rng=rng, depth=depth, degree=degree)
            rows.append({"adversary": adversary, "eta": float(eta),
                         "error": error(mu, find(c.X, c.y, depth=depth).tree.predict(points).astype(float))})
    return rows


def theorem_search(*, n: int, size: int, n_stochastic: int, depth: int, degree: int, m: int, etas: Sequence[float],
                   delta: float, restarts: int, steps: int, seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Search the class of [BLT21] Theorems 1 and 3 for the member that does worst against the bound.

    Members: targets of :func:`hard_target` (query depth ``depth + 2``, coins inside) and, for Theorem 3,
    every adversary of :data:`dtcore.noise.ADVERSARIES` at every η of ``etas``. Score of a member: the
    share of the allowance it uses, (error − opt) / (bound − opt), on one clean sample. ``restarts``
    random targets, then ``steps`` steps of :func:`mutate_target` from the Theorem 3 leader (a step is
    kept when its score is at least the leader's). Returns every evaluation (one row per target and
    (adversary, η); ``target`` numbers them, ``phase`` says restart or step) and the worst member
    found per theorem: ``{"Theorem 1": (member, "none", 0.0), "Theorem 3": (member, adversary, η)}``.
    """
    restarts, steps = positive_int("restarts", restarts), int(steps)
    streams = experiment_streams(seed, "ch03/theorem_search", restarts + steps)
    rows, members = [], []

    def score(frame: pd.DataFrame, member: TheoremMember) -> pd.Series:
        eps = theorem_epsilon(member, n=n, depth=depth, m=m, delta=delta)
        return (frame["error"] - member.opt) / (2 * frame["eta"] + eps)

    def run(member: TheoremMember, rng: np.random.Generator, phase: str) -> pd.DataFrame:
        X0, y0 = sample(member.target, m, rng=rng)
        frame = pd.DataFrame(evaluate_member(member, X0=X0, y0=y0, etas=etas, depth=depth, degree=degree, rng=rng))
        frame["allowance_share"] = score(frame, member)
        frame = frame.assign(target=len(members), phase=phase, opt=member.opt, best_excess=member.best_excess)
        members.append(member)
        rows.append(frame)
        return frame

    leader, leader_score = None, -math.inf
    for rng in streams[:restarts]:
        member = theorem_member(hard_target(n=n, size=size, n_stochastic=n_stochastic, query_depth=min(n, depth + 2),
                                            rng=rng), depth)
        s = float(run(member, rng, "restart").query("eta > 0")["allowance_share"].max())
        if s > leader_score:
            leader, leader_score = member, s
    for rng in streams[restarts:]:
        member = theorem_member(mutate_target(leader.target, rng), depth)
        s = float(run(member, rng, "step").query("eta > 0")["allowance_share"].max())
        if s >= leader_score:
            leader, leader_score = member, s
    evaluations = pd.concat(rows, ignore_index=True)
    worst_members = {}
    for theorem, mask in (("Theorem 1", evaluations["eta"] == 0), ("Theorem 3", evaluations["eta"] > 0)):
        row = evaluations[mask].loc[evaluations[mask]["allowance_share"].idxmax()]
        worst_members[theorem] = (members[int(row["target"])], str(row["adversary"]), float(row["eta"]))
    return evaluations, worst_members


def theorem_confirm(member: TheoremMember, *, adversary: str, eta: float, depth: int, degree: int, m: int,
                    reps: int, seed: int, key: str,
                    with_inverted: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """FIND's exact error at one member on ``reps`` fresh samples (stream i of ``key`` for sample i).

    With ``with_inverted=True``, also the exact error of the label-inverted tree 1 − h on each sample (the rows'
    worse output: a depth-d tree of the class, measured by the same error function): a pair of arrays."""
    points = all_points(member.target.n)
    mu = mean_table(member.target)
    errors, inverted = [], []
    for rng in experiment_streams(seed, key, reps):   # a loop over repetitions; each body is vectorised
        X0, y0 = sample(member.target, m, rng=rng)
        if adversary != "none":
            c = corrupt(adversary, X0, y0, eta, rng=rng, depth=depth, degree=degree)
            X0, y0 = c.X, c.y
        labels = find(X0, y0, depth=depth).tree.predict(points).astype(float)
        errors.append(error(mu, labels))
        inverted.append(error(mu, 1.0 - labels))
    return (np.asarray(errors), np.asarray(inverted)) if with_inverted else np.asarray(errors)


def theorem_rows(worst_members: dict[str, tuple[TheoremMember, str, float]], *, n: int, depth: int, degree: int,
                 m: int, delta: float, reps: int, restarts: int, steps: int, seed: int) -> pd.DataFrame:
    """[BLT21] Theorems 1 and 3 at the worst member found: the largest error over ``reps`` fresh samples
    against opt + 2η + ε, with ε = the best depth-d excess + 2γ_d at δ / reps (so the largest of the
    ``reps`` runs is within the bound with probability ≥ 1 − δ, the theorem's own confidence)."""
    rows = []
    for theorem, (member, adversary, eta) in worst_members.items():
        confirm: dict[str, Any] = dict(adversary=adversary, eta=eta, depth=depth, degree=degree, m=m, reps=reps,
                                       seed=seed, key=f"ch03/{theorem.replace(' ', '_').lower()}_confirm")
        errors, inverted = theorem_confirm(member, **confirm, with_inverted=True)
        eps = theorem_epsilon(member, n=n, depth=depth, m=m, delta=delta / reps)
        where = (f"target {member.target.size} leaves, {coins_above_internal_nodes(member.target)} coin(s) inside, "
                 f"query depth {int(deterministic_depths(member.target).max())}, opt {member.opt:.3f}, "
                 f"best depth-{depth} excess {member.best_excess:.3f}"
                 + ("" if adversary == "none" else f"; '{adversary_label(adversary)}' adversary at η = {eta:g}")
                 + f"; {restarts} random restarts + {steps} local steps; worst of {reps} fresh samples")
        rows.append({"result": theorem, "adversary": adversary, "eta": eta, "worst_error": float(errors.max()),
                     "mean_error": float(errors.mean()), "opt": member.opt, "best_excess": member.best_excess,
                     "eps": eps, "bound": bounds.blt21_find_error_bound(member.opt, eta, eps),
                     # the row's power: the label-inverted tree 1 − h on the same samples, measured the same way
                     "inverted_worst_error": float(inverted.max()), "worst_case": where})
    return pd.DataFrame(rows)


def check_theorems(table: VerificationTable, rows: pd.DataFrame) -> None:
    """The counted rows of [BLT21] Theorems 1 and 3 at the worst member found (:func:`theorem_rows`)."""
    for _, r in rows.iterrows():
        theorem_or_observation(
            table, r["result"], "FIND's worst exact error at the worst member found" + (
                "" if r["adversary"] == "none" else f" (η = {r['eta']:g})"),
            r["worst_error"], r["bound"], reach=(r["opt"], 1.0 - r["opt"]), box="thm-blt21-3",
            measured_by="dtcore.find.find, dtcore.stochastic.error",
            bound_by="dtcore.bounds.blt21_find_error_bound, dtcore.find.population_find, "
                     "dtcore.bounds.blt21_lemma42_uniform_deviation",
            worst_case=r["worst_case"],
            fails_under=("FIND's tree with its labels inverted, 1 − h (worst of the same fresh samples)",
                         float(r["inverted_worst_error"])),
            why_no_power=f"FIND's tree with its labels inverted has error {r['inverted_worst_error']:.4f}, within "
                         f"opt + 2η + ε: no output we can name fails the row",
            why="opt + 2η + ε is at least 1 − opt, the largest error any hypothesis has against this target")


def theorem_glue(rows: pd.DataFrame, evaluations: pd.DataFrame, *, size: int, depth: int) -> dict[str, Any]:
    """Theorems 1 and 3 at the worst member, for the text: errors, bounds, margins, the factor at which each
    row would fail, the search's size and the depth Lemma 2.1 with Corollary 4.1 asks for."""
    t1, t3 = (rows.set_index("result").loc[k] for k in ("Theorem 1", "Theorem 3"))
    eps_half = 0.49   # the largest ε in (0, 1/2): the smallest depth the corollary asks for
    copies = math.ceil(1 / eps_half ** 2)
    values = {"ch3_thm_targets": int(evaluations["target"].nunique()), "ch3_thm_evals": len(evaluations),
              "ch3_thm_cor_depth": math.ceil(math.log2(size ** copies / eps_half)), "ch3_thm_cor_copies": copies}
    for tag, r in (("1", t1), ("3", t3)):
        values |= {f"ch3_thm{tag}_error": float(r["worst_error"]), f"ch3_thm{tag}_bound": float(r["bound"]),
                   f"ch3_thm{tag}_opt": float(r["opt"]), f"ch3_thm{tag}_best": float(r["best_excess"]),
                   f"ch3_thm{tag}_margin": float(r["worst_error"] / r["bound"]),
                   f"ch3_thm{tag}_fail_factor": float(r["bound"] / r["worst_error"]),
                   f"ch3_thm{tag}_half": "fail" if r["worst_error"] > r["bound"] / 2 else "still hold",
                   f"ch3_thm{tag}_third": "fail" if r["worst_error"] > r["bound"] / 3 else "still hold"}
    values |= {"ch3_thm3_adv": str(t3["adversary"]), "ch3_thm3_eta": float(t3["eta"])}
    return values


# --- the search guarded where its truth is known ([BLT21] Theorems 1 and 3; issue 36) -----------------------

def _flip_or_redraw(tree: DecisionTree, rng: np.random.Generator) -> DecisionTree:
    """The search's local move written afresh (the replay's own): one coin's probability redrawn in [0.1, 0.9]
    or one leaf's label flipped, the node chosen uniformly among coins and leaves in node order."""
    from dtcore.tree import LEAF, STOCHASTIC

    out = tree.copy()
    kinds = np.asarray(out.feature)
    movable = np.flatnonzero((kinds == LEAF) | (kinds == STOCHASTIC))
    node = int(movable[int(rng.integers(movable.size))])
    if kinds[node] == STOCHASTIC:
        out.branch_prob[node] = float(rng.uniform(0.1, 0.9))
    else:
        out.set_value(node, 1.0 - float(out.value[node]))
    return out


def replay_search(*, n: int, size: int, n_stochastic: int, depth: int, degree: int, m: int, etas: Sequence[float],
                  delta: float, restarts: int, steps: int, seed: int) -> pd.DataFrame:
    """The schedule of :func:`theorem_search` enumerated by code of its own: every restart member (rebuilt from
    its stream by the class's sampler :func:`hard_target`), every local step from the leader (the move and the
    acceptance written afresh), each scored on its own sample under every adversary and η with the error
    (E_x |h − μ_T| for 0/1 h), opt (E min(μ_T, 1 − μ_T)) and Lemma 4.2's γ (:func:`printed_gamma`) computed here.
    One row per (member, adversary, η) in the search's order, with ``allowance_share``. The search must reproduce
    every share (an identity): a search with fewer restarts, a move dropped or the acceptance flipped does not."""
    streams = experiment_streams(seed, "ch03/theorem_search", restarts + steps)
    points = all_points(n)
    two_gamma = 2.0 * printed_gamma(count_trees(n, depth), m, delta)
    rows: list[dict[str, Any]] = []

    def evaluate(tree: DecisionTree, rng: np.random.Generator, index: int) -> float:
        mu = mean_table(tree)
        opt_t = float(np.minimum(mu, 1.0 - mu).mean())
        eps = max(0.0, population_find(mu, depth).error - opt_t) + two_gamma
        X0, y0 = sample(tree, m, rng=rng)
        runs = [("none", 0.0, X0, y0)]
        for eta in etas:
            for adversary in ADVERSARIES:
                c = corrupt(adversary, X0, y0, eta, rng=rng, depth=depth, degree=degree)
                runs.append((adversary, float(eta), c.X, c.y))
        best_positive = -math.inf
        for adversary, eta, X, y in runs:
            h = find(X, y, depth=depth).tree.predict(points)
            err = float(np.mean(np.where(h == 1, 1.0 - mu, mu)))
            share = (err - opt_t) / (2.0 * eta + eps)
            rows.append({"target": index, "adversary": adversary, "eta": eta, "allowance_share": share})
            if eta > 0:
                best_positive = max(best_positive, share)
        return best_positive

    leader, leader_share = None, -math.inf
    for i, rng in enumerate(streams[:restarts]):
        tree = hard_target(n=n, size=size, n_stochastic=n_stochastic, query_depth=min(n, depth + 2), rng=rng)
        share = evaluate(tree, rng, i)
        if share > leader_share:
            leader, leader_share = tree, share
    for i, rng in enumerate(streams[restarts:], start=restarts):
        tree = _flip_or_redraw(leader, rng)
        share = evaluate(tree, rng, i)
        if share >= leader_share:
            leader, leader_share = tree, share
    return pd.DataFrame(rows)


def search_replay_deviation(evaluations: pd.DataFrame, replay: pd.DataFrame) -> float:
    """The largest |share of the search − share of the replay| over every (member, adversary, η) of the schedule;
    infinite when the two saw different members (another count or order)."""
    keys = ["target", "adversary", "eta"]
    if len(evaluations) != len(replay) or not evaluations[keys].reset_index(drop=True).equals(
            replay[keys].reset_index(drop=True)):
        return math.inf
    return float(np.max(np.abs(evaluations["allowance_share"].to_numpy() - replay["allowance_share"].to_numpy())))


def reference_shares(runs: pd.DataFrame, setting: Any, *, etas: Sequence[float]) -> dict[str, float]:
    """The named reference member each theorem's search must beat: the chapter's Table 1 target (drawn once from
    "ch03/target", independently of the search) at its worst Table 1 run, as a share of its allowance,
    (worst FIND error − opt) / (2η + ε) with ε = its best depth-d excess + 2γ (γ from :func:`printed_gamma`):
    at η = 0 for Theorem 1, the worst over the adversaries and the η of ``etas`` for Theorem 3."""
    find_runs = runs[runs["algorithm"] == "FIND"]
    eps = max(0.0, setting.approx.error - setting.opt) + 2.0 * printed_gamma(
        count_trees(setting.target.n, setting.depth), setting.m, setting.delta)
    worst_err = find_runs.groupby(["adversary", "eta"])["error"].max().reset_index()
    share = (worst_err["error"] - setting.opt) / (2.0 * worst_err["eta"] + eps)
    clean = worst_err["eta"] == 0
    positive = worst_err["eta"].isin([float(e) for e in etas if e > 0])
    return {"Theorem 1": float(share[clean].max()) if clean.any() else 0.0,
            "Theorem 3": float(share[positive].max()) if positive.any() else 0.0}


def check_search(table: VerificationTable, evaluations: pd.DataFrame, replay: pd.DataFrame,
                 references: dict[str, float]) -> None:
    """The guards of the Theorems 1/3 search: the replayed schedule (identity: the search saw and scored exactly the
    members its schedule names) and, per theorem, the named reference member it must beat (counted: the amount by
    which the reference uses more of its allowance than the member found, 0 when the search beat it)."""
    table.identity("Theorems 1, 3 (worst-member search)",
                   "max |allowance share of the search − of its schedule replayed| over every (member, adversary, η)",
                   search_replay_deviation(evaluations, replay), 1e-12, box="thm-blt21-3",
                   computed_by=("dtbook.experiments.ch03.theorems_1_3.theorem_search",
                                "dtbook.experiments.ch03.theorems_1_3.replay_search"))
    for theorem, mask in (("Theorem 1", evaluations["eta"] == 0), ("Theorem 3", evaluations["eta"] > 0)):
        found = float(evaluations.loc[mask, "allowance_share"].max())
        table.identity(f"{theorem} (worst-member search)",
                       "allowance share of the reference member (the Table 1 target, worst run) above the member "
                       "found (0: the search beat it)", max(0.0, references[theorem] - found), 0.0, box="thm-blt21-3",
                       computed_by=("dtbook.experiments.ch03.theorems_1_3.theorem_search",
                                    "dtbook.experiments.ch03.table_1.table1_runs, "
                                    "dtbook.experiments.ch03.theorems_1_3.reference_shares"))
