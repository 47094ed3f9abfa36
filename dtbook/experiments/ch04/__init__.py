"""Chapter 4's experiments: top-down learning on product spaces (Moakhar et al. 2026, [MGBH26]).

One module per result of the paper; each holds the result's experiment, its figure and table, its
``check_*`` function (the only place the page's verification rows are built) and its ``*_glue`` text helper.

================  =============================================================================================
module            paper result
================  =============================================================================================
``influence``     [MGBH26] Sec. 1.1: re-randomisation against flip influence, a worked example
``exact_lemmas``  Lemmas 4.1, 4.2, 4.3, C.1, C.2 and OSSS on random targets (exact)
``suprema``       Lemmas 4.1-4.5, C.1, C.2 at their supremum over every function on n ≤ 4 and three measures
``lemma44``       Lemmas 4.4 and 4.5 along exact runs of Algorithm 1; the gated majority (Lemma 4.4's Δ-form)
``theorem11``     Theorems 1.1 and 5.1 (size), Lemmas 4.6 and 4.7 (phases), Theorem 1.1 on every function on n ≤ 4
``appendix_e``    Appendix E: balanced against path trees (E.1 on its class and outside it, E.2)
``lemma52``       Lemma 5.2: the score estimator is unbiased
``figure2``       Figure 2 with Algorithm 2, its sample sizes (Sec. 5.5, Lemmas 5.3, 5.4), label variants, speed
``stop_edge``     Sec. 5.3: Algorithm 2's guarantee at ε just below a chain tree's exact error (the stop constant ¾)
``selection``     Sec. 5.2: Algorithm 2's ¼-selection guarantee at the hardest members of an exhaustive search
``search_checks`` the exhaustive search against the dictator's hand-worked ratios; every counted
                  bound (and Algorithm 2's schedules) against its printed formula
``witnesses``     the printed Lemmas C.1 and 4.4: every hypothesis at the search's witness, in Fractions
``common``        reaches and reasons shared by the rows, the dictator, the paper's balanced and path targets
================  =============================================================================================

Every quantity a check compares is computed exactly on truth tables or from the target's leaves, never
read from the algorithm that is checked. Seeds follow :mod:`dtbook.seeds`: each experiment draws from
its own stream, keyed by a stable name (``"ch04/<experiment>"``) under the chapter's ``seed``: sweeps
through ``sweep(..., key=...)``, direct draws through a generator the notebook makes with
``seeds.experiment_rng(seed, key)``.
"""

from . import (appendix_e, common, exact_lemmas, figure2, influence, lemma44, lemma52, search_checks,  # noqa: F401
               selection, stop_edge, suprema, theorem11, witnesses)
