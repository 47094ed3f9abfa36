"""Chapter 1's experiments: BuildTopDownDT's guarantees and limitations (Blanc, Lange and Tan 2020, [BLT20]).

One module per result of the paper; each holds the result's experiment, its figure and table, its
``check_*`` function (the only place the page's verification rows are built) and its ``*_glue`` text helper.

==================  ===========================================================================================
module              paper result
==================  ===========================================================================================
``section3``        [BLT20] Sec. 3, BuildTopDownDT: the traced run on the multiplexer
``lemma51``         [BLT20] Lemma 5.1, the cost potential (error ≤ cost; a split spends its score)
``suprema``         Lemmas 5.1(1), 5.2, 5.3, 5.4 and OSSS at their supremum over every function on n ≤ 4
``osss``            OSSS [OSSS05] and [BLT20] Lemma 5.3 on random trees; Var and Inf against Parseval (Sec. 2)
``lemmas52_54``     [BLT20] Lemmas 5.2 and 5.4 along real runs, and the replay identities of Sec. 3
``theorem3``        [BLT20] Theorem 3 on runs, and its proof step by step at its worst on n ≤ 4
``lower_bound``     our families for [BLT20]'s lower bound: nested decoy parities, the decoy selector
``search_checks``   the exhaustive search against brute force (n = 3) and reference members (n = 4); every
                    bound of a counted row against its printed formula
``common``          prose formatting, provenance names, the target families shared by the modules above
==================  ===========================================================================================

Every function takes its sizes as keyword parameters and returns data (DataFrames, dicts of measured
values or of glue values) or a figure; the notebook ``book/01_top_down_guarantees.ipynb`` runs them. Every
target is a truth table, so every error, cost and influence is exact. Every random draw comes from its
experiment's stream (:mod:`dtbook.seeds`), keyed by ``(seed, "ch01/<experiment>")``: lemma51, osss,
lemma_runs (and lemma_runs_fixed for the families that draw nothing), theorem3, theorem3_corner and orders.
"""

from . import common, lemma51, lemmas52_54, lower_bound, osss, search_checks, section3, suprema, theorem3  # noqa: F401
