"""Each theorem's bound as a function, with the constants the proofs give.

Logarithms are base 2 (decision-tree size and depth count bits). Chapter 1: Blanc–Lange–Tan,
ITCS 2020 (BLT); O'Donnell–Saks–Schramm–Servedio 2005 (OSSS).
"""

from __future__ import annotations

import math

import numpy as np

from .validate import check_choice, check_int, check_real


# --- Chapter 1: Blanc–Lange–Tan, ITCS 2020 (BLT20); O'Donnell–Saks–Schramm–Servedio 2005 (OSSS05) ---

def _check_size(s: float) -> float:
    s = float(s)
    if not s >= 2:
        raise ValueError(f"s must be a tree size >= 2 (log s must be positive), got {s!r}")
    return s


def osss05_max_influence_lower(variance: float, s: float) -> float:
    """OSSS: a function computed by a size-s tree has max_i Inf_i(f) >= Var(f) / log2 s."""
    return float(variance) / math.log2(_check_size(s))


def blt20_lemma53_total_influence_upper(variance: float, s: float) -> float:
    """BLT Lemma 5.3: a size-s tree's function has Inf(f) <= Var(f) log2(4 s / Var(f)) (0 if Var = 0)."""
    s = _check_size(s)
    v = check_real("variance", variance, 0.0, 1.0, low_open=False, high_open=False)
    return 0.0 if v == 0 else v * math.log2(4 * s / v)


def blt20_lemma52_score_lower(eps: float, leaves: int | np.ndarray, s: float) -> np.ndarray | float:
    """BLT Lemma 5.2: while error > eps, the selected leaf's score is >= eps / (L log2 s) (L leaves)."""
    eps = check_real("eps", eps, 0.0, 0.5)
    return eps / (np.asarray(leaves, dtype=np.float64) * math.log2(_check_size(s)))


def blt20_lemma54_threshold(eps: float, s: float) -> float:
    """BLT Lemma 5.4 applies while cost_f(T) >= eps log2(4 s / eps)."""
    eps = check_real("eps", eps, 0.0, 0.5)
    return eps * math.log2(4 * _check_size(s) / eps)


def blt20_lemma54_score_lower(cost: float | np.ndarray, eps: float, leaves: int | np.ndarray, s: float):
    """BLT Lemma 5.4: if cost >= eps log2(4s/eps), the selected score >= cost / (L log2(4s/eps) log2 s)."""
    eps = check_real("eps", eps, 0.0, 0.5)
    s = _check_size(s)
    return np.asarray(cost, dtype=np.float64) / (
        np.asarray(leaves, dtype=np.float64) * math.log2(4 * s / eps) * math.log2(s)
    )


def blt20_theorem3_size_bound(s: float, eps: float, initial_cost: float | None = None) -> float:
    """An explicit form of BLT Theorem 3 from its two-phase proof; returns a size (may be inf).

    With A = log2(4s/eps), B = log2 s and C0 = cost of the one-leaf tree (= Inf(f) <= B):
    phase 1 (Lemma 5.4) reaches cost <= eps A within L1 = ceil((C0 / (eps A))^(A B)) leaves,
    because the cost shrinks by a factor (1 - 1/(L A B)) at L leaves and prod (1 - 1/(jAB))
    <= (L+1)^(-1/(AB)); phase 2 (Lemma 5.2) lowers the cost by at least eps/(L B) at L leaves,
    and the cost stays above eps until the last split, so ln(L_end / L1) <= B (A - 1):
    size <= 1 + L1 * exp(B (A - 1)). Without ``initial_cost``, C0 = B is used.
    """
    s = _check_size(s)
    eps = check_real("eps", eps, 0.0, 0.5)
    a, b = math.log2(4 * s / eps), math.log2(s)
    c0 = b if initial_cost is None else float(initial_cost)
    if c0 < 0:
        raise ValueError(f"initial_cost must be >= 0, got {c0!r}")
    log_l1 = max(0.0, a * b * math.log(c0 / (eps * a))) if c0 > 0 else 0.0
    log_size = log_l1 + b * (a - 1)
    if log_size > 700:
        return math.inf
    return 1.0 + math.ceil(math.exp(log_l1)) * math.exp(b * (a - 1))


def blt20_theorem3_log2_size_bound(s: float, eps: float, initial_cost: float | None = None) -> float:
    """log2 of :func:`blt20_theorem3_size_bound`, finite even where the bound overflows a float."""
    s = _check_size(s)
    eps = check_real("eps", eps, 0.0, 0.5)
    a, b = math.log2(4 * s / eps), math.log2(s)
    c0 = b if initial_cost is None else float(initial_cost)
    log2_l1 = max(0.0, a * b * math.log2(c0 / (eps * a))) if c0 > 0 else 0.0
    # log2(1 + 2^x) ~ x for the large exponents involved; exact enough for a plot on a log axis
    x = log2_l1 + b * (a - 1) * math.log2(math.e)
    return x + math.log2(1 + 2.0 ** -x) if x < 1000 else x


def blt20_theorem3_exponent(s: float, eps: float) -> float:
    """The exponent log2(s/eps) log2(1/eps) of BLT Theorem 3's s^O(.) (constant 1, for shape only)."""
    s = _check_size(s)
    eps = check_real("eps", eps, 0.0, 0.5)
    return math.log2(s / eps) * math.log2(1 / eps)


# --- Chapter 2: Blanc–Gupta–Lange–Tan, NeurIPS 2020 (BGLT20) -------------------------------------

def bglt20_depth_cap(t: int) -> int:
    """D = floor(log2 t + log2 log2 t) of BGLT20 eq. (5), written out here so that the bounds do not
    read the cap the learner uses (dtcore.topdown.depth_cap): a fault in one shows against the other."""
    t = check_int("t", t, 1)
    return 0 if t == 1 else int(math.floor(math.log2(t) + math.log2(math.log2(t)) + 1e-12))


def bglt20_lemma_b3_batch(C: float, alpha: float, Delta: float, t: int, d: int, delta: float) -> float:
    """BGLT20 Lemma B.3: b >= max(8, 2 (2C/Delta)^(2/alpha)) ln(9 t d / delta) gives every local gain
    of MiniBatchTopDown_G within Delta of the truth, w.p. >= 1 - delta."""
    Delta = check_real("Delta", Delta, 0.0, math.inf)
    delta = check_real("delta", delta, 0.0, 1.0)
    return max(8.0, 2.0 * (2.0 * C / Delta) ** (2.0 / alpha)) * math.log(9.0 * t * d / delta)


def bglt20_theorem4_batch(C: float, alpha: float, kappa: float, s: float, eps: float, t: int, d: int,
                          delta: float) -> float:
    """BGLT20 Theorem 4 (formal Theorem 1) via Lemma B.5: Lemma B.3's b with Delta = kappa eps^2 / (320 log2^2 s)."""
    eps = check_real("eps", eps, 0.0, 0.5)
    Delta = kappa / 320.0 * (eps / math.log2(_check_size(s))) ** 2
    return bglt20_lemma_b3_batch(C, alpha, Delta, t, d, delta)


def bglt20_lemma_c1_deviation(m: int, depth: int, delta: float) -> float:
    """BGLT20 Lemma C.1: with m uniform strands and tree depth ``depth``, |e - s| < Delta w.p. >= 1 - delta,
    Delta = 2^depth sqrt(ln(2/delta) / (2m)) (Hoeffding, each term in [0, 2^depth])."""
    delta = check_real("delta", delta, 0.0, 1.0)
    if int(m) < 1 or int(depth) < 0:
        raise ValueError(f"m must be >= 1 and depth >= 0, got m={m!r}, depth={depth!r}")
    return 2.0 ** int(depth) * math.sqrt(math.log(2.0 / delta) / (2.0 * int(m)))


STRAND_FORMS = ("paper", "depth")


def bglt20_theorem5_strands(t: int, eta: float, delta: float, form: str = "paper") -> float:
    """Strands m for t' in t(1 +- eta) w.p. >= 1 - delta (BGLT20, proof of Theorem 5).

    Lemma C.1 with Delta = eta t and a union bound over the t(1 + eta) trees T_1, ..., T_{t(1+eta)}:
    m >= R^2 ln(2 t (1 + eta) / delta) / (2 (eta t)^2), where R bounds every term 2^|l(x)|.

    * ``form="paper"``: R = 2^(log t + log log t) = t log2 t, the paper's expression (it takes the
      depth of every T_j to be at most log t + log log t).
    * ``form="depth"``: R = 2^(D + 1), D = floor(log t + log log t): MiniBatchTopDown_G splits leaves
      of depth up to D, so its trees reach depth D + 1, and this is the range Hoeffding needs.
      It is (2^(D+1) / (t log t))^2 times the paper's, between 1 and 4 times it.
    """
    t = int(t)
    if t < 2:
        raise ValueError(f"t must be an integer >= 2, got {t!r}")
    eta = check_real("eta", eta, 0.0, 0.5)
    delta = check_real("delta", delta, 0.0, 1.0)
    check_choice("form", form, STRAND_FORMS)
    R = t * math.log2(t) if form == "paper" else 2.0 ** (bglt20_depth_cap(t) + 1)
    return R**2 * math.log(2.0 * t * (1.0 + eta) / delta) / (2.0 * (eta * t) ** 2)


def bglt20_lemma_d1_labels(b: int, t: int, n_strands: int, n_queries: int = 1) -> int:
    """BGLT20 Lemma D.1 / Theorem 6, explicit: LocalLearner_G / Est_G label at most b ((m + k)(D + 1) + k) points.

    Each of the m strands and k queries meets at most D + 1 scored leaves (depths 0..D), one
    minibatch of <= b points each, and each query's final leaf may need one more minibatch:
    q = O(b^2 log t) for k = 1, m = b, and O(|S_test| b log t + b^2 log t) for Est. This counts
    label *requests*; the distinct points labelled are at most as many.
    """
    if int(b) < 1 or int(n_strands) < 1 or int(n_queries) < 0:
        raise ValueError(f"b and n_strands must be >= 1 and n_queries >= 0, got {b}, {n_strands}, {n_queries}")
    D = bglt20_depth_cap(t)
    return int(b) * ((int(n_strands) + int(n_queries)) * (D + 1) + int(n_queries))


# --- Chapter 3: Blanc–Lange–Tan, ICALP 2021 (stochastic trees under nasty noise) -------------------------
def blt21_find_error_bound(opt: float, eta: float, eps: float) -> float:
    """BLT 2021 Theorems 1 and 3: FIND's tree has error <= opt + 2 eta + eps (eta = 0: Theorem 1)."""
    return float(opt) + 2.0 * check_real("eta", eta, 0.0, 0.5, low_open=False) + float(eps)


def blt21_low_degree_error_bound(opt: float, eta: float, eps2: float) -> float:
    """BLT 2021 Theorem 4 / Lemma 5.3 with the proof's constants: error <= opt + 2 sqrt(2 eta + eps2).

    Fact 1.2 and Cauchy-Schwarz give error <= opt + 2 sqrt(E(trunc p* - mu_T)^2), and the Fact 4.3
    chain bounds that mean square by 2 eta + eps2 (eps2: approximation + generalisation terms).
    So the O(sqrt(eta)) term is 2 sqrt(2) sqrt(eta).
    """
    eta = check_real("eta", eta, 0.0, 0.5, low_open=False)
    if float(eps2) < 0:
        raise ValueError(f"eps2 must be >= 0, got {eps2!r}")
    return float(opt) + 2.0 * math.sqrt(2.0 * eta + float(eps2))


def blt21_l1_error_bound(opt: float, eta: float, eps: float) -> float:
    """BLT 2021 Theorem 4 / Lemma 5.5: L1 regression's stochastic hypothesis has error <= 2 opt + 2 eta + eps."""
    return 2.0 * float(opt) + 2.0 * check_real("eta", eta, 0.0, 0.5, low_open=False) + float(eps)


def blt21_lower_bound_excess(eta: float) -> float:
    """The information-theoretic minimum (BLT 2021 Sec. 1.1, after BEK 2002): some target in the
    indistinguishable pair suffers excess error >= eta for every hypothesis, >= 2 eta for one
    constant on the disputed region; the sum over the pair is >= 2 eta."""
    return check_real("eta", eta, 0.0, 0.5, low_open=False)


def blt21_lemma42_uniform_deviation(n_hypotheses: float, m: int, delta: float) -> float:
    """sqrt(ln(2 N / delta) / (2 m)): every one of N fixed hypotheses has empirical error within
    this of its true error, simultaneously, w.p. >= 1 - delta (Hoeffding + union bound; MR02 / Lemma 4.2)."""
    delta = check_real("delta", delta, 0.0, 1.0)
    if n_hypotheses < 1 or int(m) < 1:
        raise ValueError(f"n_hypotheses and m must be >= 1, got {n_hypotheses!r}, {m!r}")
    return math.sqrt((math.log(2.0) + math.log(n_hypotheses) - math.log(delta)) / (2.0 * int(m)))


def blt21_lemma21_expected_l1(c: int) -> float:
    """BLT 2021 Lemma 2.1 (proof): E_r E_x |mean of c copies - mu_T| <= 1 / (2 sqrt c) (c = 1/eps^2 gives eps/2)."""
    if int(c) < 1:
        raise ValueError(f"c must be an integer >= 1, got {c!r}")
    return 0.5 / math.sqrt(int(c))


def _blt21_discretised_eps(m: int, n_coefficients: int, delta: float) -> float:
    """The eps' of the discretisation argument (proof of BLT 2021 Lemma 5.2): the least eps' with
    2 |P| exp(-2 m eps'^2) <= delta, |P| = (2K/eps' + 1)^K (K coefficients in [-1, 1] on a grid of
    step eps'/K, so every truncated polynomial is within eps'/2 of one of them pointwise)."""
    delta = check_real("delta", delta, 0.0, 1.0)
    if int(m) < 1 or int(n_coefficients) < 1:
        raise ValueError(f"m and n_coefficients must be >= 1, got {m!r}, {n_coefficients!r}")
    K, eps = int(n_coefficients), 1.0
    for _ in range(200):  # fixed point of a decreasing map: converges monotonically
        new = math.sqrt((math.log(2.0 / delta) + K * math.log(2.0 * K / eps + 1.0)) / (2.0 * int(m)))
        if abs(new - eps) < 1e-12:
            break
        eps = new
    return eps


def blt21_lemma52_eps(m: int, n_coefficients: int, delta: float) -> float:
    """BLT 2021 Lemma 5.2 for a stated m: w.p. >= 1 - delta, for every degree-d polynomial p,
    |E_S°(trunc p - y)^2 - (E_x(trunc p - mu_T)^2 + E Var T(x))| <= 7 eps' (the proof's constant 7:
    3 eps' per discretisation step on each side plus eps' of Hoeffding), eps' from the union bound
    over the grid (:func:`_blt21_discretised_eps`). ``n_coefficients`` = sum_{k<=d} C(n, k)."""
    return 7.0 * _blt21_discretised_eps(m, n_coefficients, delta)


def blt21_lemma54_eps(m: int, n_coefficients: int, delta: float) -> float:
    """BLT 2021 Lemma 5.4 for a stated m (proof "the same as Lemma 5.2"): w.p. >= 1 - delta, for
    every degree-d polynomial p, |E_S°|trunc p - y| - E_{x,T}|trunc p - T(x)|| <= 3 eps'. The
    absolute loss is 1-Lipschitz, so each discretisation step costs eps' instead of 3 eps'."""
    return 3.0 * _blt21_discretised_eps(m, n_coefficients, delta)


def blt21_corollary41_truncation(leaf_depths: np.ndarray, depth: int) -> float:
    """BLT 2021 Corollary 4.1's truncation step, exactly: cutting a tree at depth d changes its
    output only on inputs that reach depth d and go on, mass sum over leaves deeper than d of
    2^-depth(leaf) (at most S 2^-d, the paper's count). ``leaf_depths``: query depth of each leaf."""
    depths = np.asarray(leaf_depths)
    if int(depth) < 0:
        raise ValueError(f"depth must be >= 0, got {depth!r}")
    return float(np.sum(2.0 ** -depths[depths > int(depth)].astype(np.float64)))


# --- Chapter 4: Moakhar–Ghahremani–Banihashem–Hajiaghayi 2026 (product spaces) --------------
# Prefix mgbh26_: the paper's authors' initials and year; names carry the paper's own numbers.

def _check_depths(depth: float, avg_depth: float) -> tuple[float, float]:
    d = float(depth)
    a = float(avg_depth)
    if not d >= 1:
        raise ValueError(f"depth must be >= 1, got {depth!r}")
    if not (0 < a <= d * (1 + 1e-9)):  # float rounding of Delta = D for full trees
        raise ValueError(f"avg_depth must be in (0, depth], got {avg_depth!r}")
    return d, min(a, d)


def mgbh26_log_size_bound(depth: float, avg_depth: float, eps: float, factor: float = 1.0) -> float:
    """ln of max((e Delta / (eps D))^(c Delta D), e^(c Delta D)), c = ``factor``.

    c = 1: Theorem 1.1 of Moakhar et al. 2026 (exact greedy); c = 4: Theorem 5.1 (any leaf whose
    score is >= 1/4 of the best). D = depth, Delta = avg_depth of any tree computing f under mu.
    """
    d, a = _check_depths(depth, avg_depth)
    eps = check_real("eps", eps, 0.0, 1.0)
    factor = check_real("factor", factor, 0.0, math.inf)
    k = factor * a * d
    return max(k * math.log(math.e * a / (eps * d)), k)


def mgbh26_theorem11_size_bound(depth: float, avg_depth: float, eps: float) -> float:
    """Moakhar et al. 2026, Theorem 1.1: size <= max((e Delta/(eps D))^(Delta D), e^(Delta D)) (may be inf)."""
    log_b = mgbh26_log_size_bound(depth, avg_depth, eps, 1.0)
    return math.inf if log_b > 700 else math.exp(log_b)


def mgbh26_theorem51_size_bound(depth: float, avg_depth: float, eps: float) -> float:
    """Moakhar et al. 2026, Theorem 5.1 (1/4-approximate scores): exponent 4 Delta D (may be inf)."""
    log_b = mgbh26_log_size_bound(depth, avg_depth, eps, 4.0)
    return math.inf if log_b > 700 else math.exp(log_b)


def mgbh26_lemma_c1_max_influence_lower(variance: float, avg_depth: float, paper_form: bool = False) -> float:
    """Lower bound on max_i Inf_i^mu(f) for f computed by a tree of average depth Delta under mu.

    Correct form (OSSS 2005 for +-1 functions, whose influence E|f(x) - f(x^(i))| is twice the
    re-randomised probability): Var(f) <= sum_i delta_i * 2 Inf_i^mu(f), hence
    max_i Inf_i^mu >= Var / (2 Delta). ``paper_form=True`` gives Lemma C.1 of Moakhar et al. 2026
    as printed, Var / Delta, which the dictator x_1 under p = 1/2 violates (1/2 < 1).
    """
    v = check_real("variance", variance, 0.0, 1.0, low_open=False, high_open=False)
    a = float(avg_depth)
    if not a > 0:
        raise ValueError(f"avg_depth must be > 0, got {avg_depth!r}")
    return v / a if paper_form else v / (2.0 * a)


def mgbh26_lemma44_score_lower(eps: float, leaves: int | np.ndarray, avg_depth: float,
                        paper_form: bool = False) -> np.ndarray | float:
    """Score of the chosen leaf while error > eps, with j leaves (Moakhar et al. 2026, Lemma 4.4).

    Paper: 2 eps / (j Delta_opt). With the corrected Lemma C.1 (factor 2) the same argument gives
    eps / (j Delta_opt), which is also the form the paper's proof of Lemma 4.7 uses.
    """
    eps = check_real("eps", eps, 0.0, 1.0)
    c = 2.0 if paper_form else 1.0
    return c * eps / (np.asarray(leaves, dtype=np.float64) * float(avg_depth))


def mgbh26_lemma45_score_lower(cost: float | np.ndarray, leaves: int | np.ndarray, depth: float,
                        avg_depth: float, paper_form: bool = False) -> np.ndarray | float:
    """Score of the chosen leaf >= cost / (j D Delta) (paper, Lemma 4.5); corrected: / (2 j D Delta)."""
    c = 1.0 if paper_form else 0.5
    return c * np.asarray(cost, dtype=np.float64) / (
        np.asarray(leaves, dtype=np.float64) * float(depth) * float(avg_depth))


def mgbh26_path_average_depth(queries: int, exit_prob: float | np.ndarray) -> float:
    """Delta of a path tree with k queries whose level-d exit is taken with probability q_d.

    Delta = sum_{d<k} d q_d prod_{e<d}(1-q_e) + k prod_{e<k}(1-q_e) (Moakhar et al. 2026, App. E.2;
    with every q_d = 1/2 this is sum_{d<k} d 2^-d + k 2^-(k-1) <= 2).
    """
    k = int(queries)
    if k < 1:
        raise ValueError(f"queries must be >= 1, got {queries!r}")
    q = np.broadcast_to(np.asarray(exit_prob, dtype=np.float64), (k,))
    if not ((q > 0) & (q < 1)).all():
        raise ValueError(f"exit_prob must be in (0, 1), got {exit_prob!r}")
    survive = np.concatenate([[1.0], np.cumprod(1.0 - q)])  # Pr[reach level d], d = 0..k
    d = np.arange(1, k)
    return float((d * q[:-1] * survive[:-1][: k - 1]).sum() + k * survive[k - 1])


def mgbh26_lemma46_phase1_steps(depth: float, avg_depth: float, eps: float) -> float:
    """Lemma 4.6 (Phase 1): J_1 <= max((Delta/(eps D))^(D Delta), 1) splits until cost <= eps D.

    Moakhar et al. 2026, Lemma 4.6 as printed (its proof iterates Lemma 4.5 as printed).
    """
    d, a = _check_depths(depth, avg_depth)
    eps = check_real("eps", eps, 0.0, 1.0)
    log_b = d * a * math.log(a / (eps * d))
    return 1.0 if log_b <= 0 else (math.inf if log_b > 700 else math.exp(log_b))


def mgbh26_lemma47_total_steps(phase1_steps: float, depth: float, avg_depth: float) -> float:
    """Lemma 4.7 (Phase 2): J_total <= J_1 e^(Delta D), J_1 counted from 1 as in the proof's harmonic sum.

    Moakhar et al. 2026, Lemma 4.7 (its proof uses the eps/(j Delta) form of Lemma 4.4).
    """
    d, a = _check_depths(depth, avg_depth)
    j1 = float(phase1_steps)
    if not j1 >= 1:
        raise ValueError(f"phase1_steps must be >= 1 (the proof's first index), got {phase1_steps!r}")
    return j1 * math.exp(a * d)


def mgbh26_lemma53_label_gap(leaves: int, step: int, delta: float, label_points: float) -> float:
    """Lemma 5.3: |error(T) - error(T*)| <= sqrt(2 (l ln 2 + ln(16 j^2/delta)) / m_hat) w.p. 1 - delta/(8 j^2).

    T is the majority labelling of an l-leaf bare tree from m_hat points, T* its best labelling
    (Moakhar et al. 2026, Sec. 5.3; a union bound over the 2^l labellings).
    """
    l, j = check_int("leaves", leaves, 1), check_int("step", step, 1)
    delta = check_real("delta", delta, 0.0, 1.0)
    m = check_real("label_points", label_points, 0.0, math.inf)
    return math.sqrt(2.0 * (l * math.log(2.0) + math.log(16.0 * j * j / delta)) / m)


def mgbh26_score_pairs_needed(step: int, delta: float, eps: float, n: int) -> float:
    """Pairs per variable that make Sec. 5.2's failure bound (j+1) n exp(-m eps/(12 (j+1) n)) equal delta/(4 j^2).

    Solving for m gives M_S(j, delta, eps, n) of Moakhar et al. 2026, Sec. 5.2; computed here from
    the failure bound, independently of :func:`dtcore.product.m_score`.
    """
    j, n = check_int("step", step, 1), check_int("n", n, 1)
    eps, delta = check_real("eps", eps, 0.0, 1.0), check_real("delta", delta, 0.0, 1.0)
    rate = eps / (12.0 * (j + 1) * n)
    return math.log((j + 1) * n / (delta / (4.0 * j * j))) / rate


def mgbh26_label_points_needed(step: int, eps: float, delta: float) -> float:
    """Labelling points that make Lemma 5.3's gap for the (j+1)-leaf tree equal eps/8 (M_LL of Sec. 5.3)."""
    j = check_int("step", step, 1)
    eps, delta = check_real("eps", eps, 0.0, 1.0), check_real("delta", delta, 0.0, 1.0)
    return 2.0 * ((j + 1) * math.log(2.0) + math.log(16.0 * j * j / delta)) / (eps / 8.0) ** 2


def mgbh26_error_points_needed(step: int, eps: float, delta: float) -> float:
    """Error-estimation points with exp(-m eps^2/32) = delta/(16 j^2) (M_EE of Lemma 5.4)."""
    j = check_int("step", step, 1)
    eps, delta = check_real("eps", eps, 0.0, 1.0), check_real("delta", delta, 0.0, 1.0)
    return math.log(16.0 * j * j / delta) / (eps * eps / 32.0)


def mgbh26_error_estimate_deviation(error_points: float, step: int, delta: float) -> float:
    """One-sided Hoeffding deviation t with exp(-2 m t^2) = delta/(16 j^2) for m error-estimation points.

    At m = M_EE(j) this is exactly eps/8, so a tree the algorithm accepts (estimate <= 3 eps/4) has
    error <= 7 eps/8 except with probability delta/(16 j^2) per step (Lemma 5.4's Hoeffding step).
    """
    j = check_int("step", step, 1)
    delta = check_real("delta", delta, 0.0, 1.0)
    m = check_real("error_points", error_points, 0.0, math.inf)
    return math.sqrt(math.log(16.0 * j * j / delta) / (2.0 * m))


# --- Chapter 5: Brutzkus–Daniely–Malach, COLT 2020 (BDM) ------------------------------------
# "m >~ ..." in BDM hides a universal constant; the sample-size functions take it as `constant`
# (default 1, which is what the chapter plots, labelled as such).

def bdm20_lemma5_gain_upper(gamma: float, eps: float | np.ndarray) -> np.ndarray | float:
    """BDM Lemma 5: an irrelevant feature's gain is < 2 gamma eps once |I(S_w, j)| < eps."""
    return 2.0 * float(gamma) * np.asarray(eps, dtype=np.float64)


def bdm20_lemma6_gain_lower(beta: float, eps: float | np.ndarray) -> np.ndarray | float:
    """BDM Lemma 6: a feature with |I(D_w, i)| >= eps has gain >= beta eps^2 / 8 (w.h.p.)."""
    return float(beta) * np.asarray(eps, dtype=np.float64) ** 2 / 8.0


def bdm20_lemma9_covariance_lower(alpha: float, c: float, k: int) -> float:
    """BDM Lemma 9: for a parity chi_J, |J| <= k, under an (alpha, c)-distribution,
    |I(D_w, j)| > alpha^2 (2c)^(k-1) for every w and every free j in J."""
    alpha = check_real("alpha", alpha, 0.0, 0.5)
    c = check_real("c", c, 0.0, 0.5)
    return alpha**2 * (2 * c) ** (int(k) - 1)


def bdm20_theorem7_samples(beta: float, gamma: float, eps: float, alpha: float, k: int, n: int,
                         delta: float, constant: float = 1.0) -> float:
    """BDM Theorem 7: m >~ beta^-2 gamma^2 eps^-4 alpha^-2k k log(n / delta) gives zero loss w.p. 1 - delta."""
    alpha = check_real("alpha", alpha, 0.0, 0.5)
    delta = check_real("delta", delta, 0.0, 1.0)
    return constant * gamma**2 / beta**2 * eps**-4 * alpha ** (-2 * k) * k * math.log(n / delta)


def bdm20_theorem10_samples(beta: float, gamma: float, alpha: float, c: float, k: int, n: int,
                          delta: float, constant: float = 1.0, as_printed: bool = True) -> float:
    """BDM Theorem 10 (parities): m >~ beta^-2 gamma^2 (2c)^(-4k-4) alpha^(-2k-8) k log(n/delta).

    ``as_printed=False`` gives what Theorem 7 with Lemma 9's eps = alpha^2 (2c)^(k-1) yields,
    exponent (2c)^(-4k+4): the printed -4k-4 is larger (looser) since 2c < 1.
    """
    alpha = check_real("alpha", alpha, 0.0, 0.5)
    c = check_real("c", c, 0.0, 0.5)
    delta = check_real("delta", delta, 0.0, 1.0)
    e = (-4 * k - 4) if as_printed else (-4 * k + 4)
    return constant * gamma**2 / beta**2 * (2 * c) ** e * alpha ** (-2 * k - 8) * k * math.log(n / delta)


def bdm20_lemma11_threshold(alpha: float, delta: float | np.ndarray, c: float, k: int) -> np.ndarray | float:
    """BDM Lemma 11: w.p. >= 1 - delta over the smoothing, some free i has |I(D_w, i)| > 2 alpha^2 delta^2 (c/2)^(2k)."""
    alpha = check_real("alpha", alpha, 0.0, 0.5)
    c = check_real("c", c, 0.0, 0.5)
    return 2 * alpha**2 * np.asarray(delta, dtype=np.float64) ** 2 * (c / 2) ** (2 * int(k))


def bdm20_theorem12_samples(beta: float, gamma: float, alpha: float, c: float, k: int, n: int,
                          delta1: float, delta2: float, B: float = 1.0) -> float:
    """BDM Theorem 12 (smoothed juntas): m >~ B^k beta^-2 gamma^2 c^-8k delta1^-8 alpha^(-2k-8) k log(n/delta2)."""
    alpha = check_real("alpha", alpha, 0.0, 0.5)
    c = check_real("c", c, 0.0, 0.5)
    return (B**k * gamma**2 / beta**2 * c ** (-8 * k) * delta1**-8 * alpha ** (-2 * k - 8)
            * k * math.log(n / delta2))


# --- Chapter 1 (BLT20 Theorem 3): the two phases of the proof, and the fact C0 <= log2 s it uses ---

def blt20_initial_cost_upper(s: float) -> float:
    """BLT Theorem 3's proof: a size-s tree's function has C0 = Inf(f) <= log2 s (its average depth)."""
    return math.log2(_check_size(s))


def blt20_theorem3_phase1_leaves(s: float, eps: float, initial_cost: float) -> float:
    """BLT Theorem 3, phase 1: the cost is <= eps log2(4s/eps) once the tree has this many leaves.

    With A = log2(4s/eps), B = log2 s and C0 = ``initial_cost``: at L leaves of phase 1 the cost
    shrinks by a factor 1 - 1/(L A B) (Lemmas 5.1(2) and 5.4), so at L leaves it is at most
    C0 L^(-1/(AB)), which is <= eps A from L1 = ceil((C0 / (eps A))^(A B)) on (1 if C0 <= eps A).
    """
    s = _check_size(s)
    eps = check_real("eps", eps, 0.0, 0.5)
    c0 = check_real("initial_cost", initial_cost, 0.0, math.inf, low_open=False)
    a, b = math.log2(4 * s / eps), math.log2(s)
    if c0 <= eps * a:
        return 1.0
    log_l1 = a * b * math.log(c0 / (eps * a))
    return math.inf if log_l1 > 700 else float(math.ceil(math.exp(log_l1)))


def blt20_theorem3_phase2_harmonic(s: float, eps: float, phase_start_cost: float) -> float:
    """BLT Theorem 3, phase 2: sum of 1/L over its splits but the last is < log2(s) (C_{L1}/eps - 1).

    Every split of phase 2 lowers the cost by at least eps/(L log2 s) (Lemmas 5.1(2) and 5.2), and the
    cost stays above eps (>= the error) until the last split, so the drops before the last split add up
    to less than C_{L1} - eps; with C_{L1} <= eps log2(4s/eps) this gives the proof's log2(s)(A - 1).
    """
    s = _check_size(s)
    eps = check_real("eps", eps, 0.0, 0.5)
    c = check_real("phase_start_cost", phase_start_cost, 0.0, math.inf, low_open=False)
    return math.log2(s) * (c / eps - 1.0)


# --- chapter 5 ([BDM20]) ---------------------------------------------------------------------------
def bdm20_theorem12_union_samples(beta: float, gamma: float, alpha: float, c: float, k: int, n: int,
                                  delta1: float, delta2: float) -> float:
    """BDM Theorem 12's sample size as its proof gives it, with no free constant B: Lemma 11 at
    delta1 / 3^k on each of the 3^k paths w (a union bound), eps = 2 alpha^2 (delta1/3^k)^2 (c/2)^(2k),
    then Theorem 7 (hidden constant 1). Equals the printed form with B^k = (6^8)^k / 16."""
    k = int(k)
    eps = float(bdm20_lemma11_threshold(alpha, delta1 / 3**k, c, k))
    return bdm20_theorem7_samples(beta, gamma, eps, alpha, k, n, delta2)
