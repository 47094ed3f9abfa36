"""Multi-class FIND and ID3's memory where users met them (issue 38, item 4): OptimalTreeClassifier
at depth 3 on wine (3 classes) and digits (10 classes) against STreeD, and the peak memory of
ID3Classifier's ``fit`` on a 50,000 x 40 real-valued sample against scikit-learn's unrestricted tree.

**What the workloads favour.** Both multi-class rows binarise every column at 8 quantile cut points
(``OptimalTreeClassifier``'s default): pystreed receives the same Boolean features, pre-binarised, and
both minimise the training error at depth 3 with no complexity penalty; dtcore's binarisation is on
its clock. The k-class depth-3 step of :func:`dtcore.find.find_classes` skips roots by bounds from
class counts, which prune most on many classes (digits) and least on few (wine). The memory row
favours scikit-learn's generality the other way: it sorts real values and keeps no Boolean matrix,
while ID3Classifier binarises every column at up to 255 cuts (10,200 Boolean features here) and
holds them bit-packed (one bit per row and feature). Peak memory is the largest resident set of a
fresh process (``VmHWM`` of ``/proc/self/status``) that imports the library, loads the saved sample and fits once, the
same script for both, so each peak includes its library's imports.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

from dtcore.estimators import OptimalTreeClassifier, ThresholdBinarizer
from dtcore.validate import check_choice, check_int
from ... import seeds
from .common import QUICK_TARGET, Benchmark, benchmark_row, timed

__all__ = ["MULTICLASS_TARGET", "MEMORY_TARGET", "multiclass_cases", "multiclass_data", "multiclass_benchmark",
           "id3_memory_rows", "id3_memory"]

#: The speed target of the multi-class rows (pinned ratio dtcore / STreeD), at both scales for wine
#: (the same workload at both) and at full scale for digits.
MULTICLASS_TARGET = 0.5
#: The target of the memory row: ID3Classifier's peak at most this many times scikit-learn's.
MEMORY_TARGET = 2.0


def multiclass_cases(scale: str) -> list[dict]:
    """The multi-class rows at ``scale``: wine (178 x 13, 3 classes) at both scales, digits
    (1,797 x 64, 10 classes; its peer takes seconds) at full scale only; depth 3, 8 cuts."""
    check_choice("scale", scale, ("quick", "full"))
    cases = [{"dataset": "wine", "depth": 3, "cuts": 8, "target": MULTICLASS_TARGET}]
    if scale == "full":
        cases.append({"dataset": "digits", "depth": 3, "cuts": 8, "target": MULTICLASS_TARGET})
    return cases


def multiclass_data(dataset: str, *, cuts: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(real X, Boolean features at ``cuts`` quantile cut points per column, class labels) of
    scikit-learn's wine or digits."""
    check_choice("dataset", dataset, ("wine", "digits"))
    from sklearn.datasets import load_digits, load_wine

    X, y = (load_wine if dataset == "wine" else load_digits)(return_X_y=True)
    Xb = ThresholdBinarizer(check_int("cuts", cuts, 1)).fit(X).transform(X)
    return X, Xb, y.astype(np.int64)


def multiclass_benchmark(case: dict, *, repetitions: int, seed: int, scale: str = "full") -> Benchmark:
    """``OptimalTreeClassifier(max_depth=d, n_thresholds=cuts).fit`` on the real-valued data against
    pystreed's ``STreeDClassifier(max_depth=d, cost_complexity=0)`` on the same binarised features
    (its own encoding inside ``fit`` is on its clock). Same result: equal training errors,
    recomputed from both trees' predictions. At quick scale the target is :data:`QUICK_TARGET`
    except for wine, whose workload is the same at both scales."""
    from pystreed import STreeDClassifier

    check_choice("scale", scale, ("quick", "full"))
    dataset, depth, cuts = case["dataset"], int(case["depth"]), int(case["cuts"])
    X, Xb, y = multiclass_data(dataset, cuts=cuts)
    peer_seed = seeds.library_seed(seed, f"performance/multiclass-{dataset}-d{depth}/peer")

    def ours():
        return OptimalTreeClassifier(max_depth=depth, n_thresholds=cuts).fit(X, y)

    def peer():
        return STreeDClassifier(max_depth=depth, cost_complexity=0.0, random_seed=peer_seed).fit(Xb, y)

    times, out = timed({"dtcore": ours, "peer": peer}, repetitions=repetitions)
    mine = int((out["pinned"]["dtcore"].predict(X) != y).sum())
    theirs = int((out["pinned"]["peer"].predict(Xb) != y).sum())
    target = case["target"] if scale == "full" or dataset == "wine" else QUICK_TARGET
    k = int(np.unique(y).size)
    return benchmark_row(f"FIND via OptimalTreeClassifier ({k} classes, d={depth})",
                         f"{dataset} {X.shape[0]:,}×{X.shape[1]}, {cuts} cuts ({Xb.shape[1]} features), real-valued input",
                         f"pystreed STreeDClassifier(max_depth={depth}) on the binarised features", times,
                         same="yes" if mine == theirs else "no", check=f"training errors {mine} / {theirs}",
                         deviation=abs(mine - theirs), target=target, profile=ours)


_PEAK_SCRIPT = """
import sys
import numpy as np
data = np.load(sys.argv[2])
X, y = data["X"], data["y"]
if sys.argv[1] == "sklearn":
    from sklearn.tree import DecisionTreeClassifier
    fit = lambda: DecisionTreeClassifier(random_state=0).fit(np.asfortranarray(X, dtype=np.float32), y)
else:
    from dtcore.estimators import ID3Classifier
    fit = lambda: ID3Classifier().fit(X, y)
from threadpoolctl import threadpool_limits
with threadpool_limits(1):
    fit()
with open("/proc/self/status") as status:  # VmHWM: this program's peak (ru_maxrss keeps the parent's)
    print(next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:")))
"""


def _peak_rss(who: str, path: str) -> int:
    """Peak resident bytes of a fresh process that fits ``who`` once on the sample saved at ``path``."""
    done = subprocess.run([sys.executable, "-c", _PEAK_SCRIPT, who, path], capture_output=True, text=True,
                          check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    return int(done.stdout.strip().splitlines()[-1])


def id3_memory_rows(scale: str) -> int:
    """Rows of the memory row's sample: 50,000 at full scale (where users met it), 5,000 at quick."""
    check_choice("scale", scale, ("quick", "full"))
    return 50_000 if scale == "full" else 5_000


def id3_memory(rng: np.random.Generator, *, rows: int, features: int = 40, repetitions: int = 1) -> pd.DataFrame:
    """Peak memory of ``ID3Classifier().fit`` (255 cuts per column, grown until pure) against
    ``sklearn.tree.DecisionTreeClassifier().fit`` on one ``make_classification`` sample of ``rows``
    x ``features``: the least peak resident set over ``repetitions`` fresh processes per side,
    alternating, with their ratio (target :data:`MEMORY_TARGET`)."""
    from sklearn.datasets import make_classification

    rows = check_int("rows", rows, 100)
    features = check_int("features", features, 2)
    repetitions = check_int("repetitions", repetitions, 1)
    X, y = make_classification(n_samples=rows, n_features=features, random_state=int(rng.integers(2**31)))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sample.npz")
        np.savez(path, X=X, y=y)
        peaks = {"dtcore": [], "sklearn": []}
        for _ in range(repetitions):  # alternate the two sides, one fresh process per fit
            for who in peaks:
                peaks[who].append(_peak_rss(who, path))
    ours, theirs = min(peaks["dtcore"]), min(peaks["sklearn"])
    return pd.DataFrame([{"workload": "ID3Classifier().fit, until pure, 255 cuts per column",
                          "size": f"{rows:,}×{features} real-valued", "peer": "sklearn DecisionTreeClassifier() (unrestricted)",
                          "dtcore_peak_MB": ours / 2**20, "peer_peak_MB": theirs / 2**20, "ratio": ours / theirs,
                          "target": MEMORY_TARGET, "target_met": "yes" if ours / theirs <= MEMORY_TARGET else "no"}])
