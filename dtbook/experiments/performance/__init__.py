"""The performance appendix's benchmarks (book/appendix_performance.ipynb): dtcore against a peer on the
same data, outputs compared, by workload.

* :mod:`.common`: a benchmark row, interleaved timing, the log of rows and profiles;
* :mod:`.buildtopdown`: exact BuildTopDownDT ([BLT20]) against its memory-bandwidth floor;
* :mod:`.topdown`: TopDown_G against scikit-learn's best-first tree ([BGLT20] Sec. 1.1), its peak
  memory, and the scale rows (TopDown_G and Est_G, [BGLT20] Theorem 3);
* :mod:`.find`: FIND against STreeD ([BLT21] Lemma 3.1), on Boolean and binarised real data;
* :mod:`.id3`: ID3 against scikit-learn's unrestricted tree ([BDM20] Algorithm 1);
* :mod:`.exact`: the exact optimum on every threshold against ConTree, and FIND against DL8.5 and GOSDT
  (issue 38), judged against the issue's targets;
* :mod:`.multiclass`: multi-class FIND (OptimalTreeClassifier) against STreeD, and ID3Classifier's
  peak memory against scikit-learn's;
* :mod:`.local`: LocalLearner against the full TopDownSizeEstimate tree ([BGLT20] Theorem 2);
* :mod:`.exhaustive`: the exhaustive layer's throughput on every function of n <= 4;
* :mod:`.scale_statement`: how FIND's and ID3's time and memory grow with rows, features and depth;
* :mod:`.users`: the workloads where users meet dtcore (FIND on binarised real data, deep FIND, ID3
  at a million rows, the scale grids and their fitted exponents);
* :mod:`.summary`: the summary table, its figure and glue, and the verification rows.
"""
