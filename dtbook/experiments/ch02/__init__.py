"""Chapter 2's experiments: estimating learnability with polylogarithmically many labels [BGLT20].

Blanc, Gupta, Lange and Tan (2020), *Estimating decision tree learnability with polylogarithmic sample
complexity*. One module per result of the paper; in each, a result's experiment function sits beside its
``check_<result>`` function (the only place that adds its verification rows), its figure and its
``<result>_glue`` function (the numbers the text quotes, by glue name). The notebook
``book/02_estimating_learnability.ipynb`` imports the modules and calls them in order.

=====================  ==========================================================================
module                 paper result
=====================  ==========================================================================
``impurity``           Definitions 3 and 4 (the impurities' constants kappa, C and alpha)
``section1``           Section 1.1 (TopDown_G is best-first CART, and its speed) and Section 1.2
                       (choosing t from Est's estimates)
``theorem1``           Theorem 1 / Theorem 4 (minibatches match the full batch), Figure 1's depth
                       cap, and Theorem 1 at the worst monotone decision list found
``theorem1_proof``     the proof of Theorem 1: Fact 2.1, Fact B.4 on runs, Lemmas B.1–B.3, B.5–B.7
``fact_b4``            Fact B.4 on every monotone function of {0,1}^4
``lemma_c1``           Lemma C.1 (the strand size estimator), also at its worst leaf-depth profile
``theorem2``           Theorem 2 / Theorem 5's LocalLearner and Lemma D.1 (label requests, savings)
``theorem5``           Theorem 5's t' in t(1 ± eta) on random members; the proof's strand count
``theorem5_worst``     Theorem 5's t' at the hardest member found, exactly from two leaf-depth profiles
``theorem3``           Theorem 3 / Theorem 6 (Est, its label count, a shifted noisy test set)
``formulas``           the printed bounds every counted row reads, written afresh beside
                       :mod:`dtcore.bounds` (one identity per formula)
``common``             what several sections use: targets, depth cap, exact errors, number formats
=====================  ==========================================================================
"""

from . import (common, fact_b4, formulas, impurity, lemma_c1, section1, theorem1, theorem1_proof, theorem2,
               theorem3, theorem5, theorem5_worst)

__all__ = ["common", "fact_b4", "formulas", "impurity", "lemma_c1", "section1", "theorem1", "theorem1_proof", "theorem2",
           "theorem3", "theorem5", "theorem5_worst"]
