"""The verification table that closes every chapter: theorem, quantity, measured, bound, holds."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

_RELATIONS = ("<=", ">=", "==")


@dataclass
class VerificationTable:
    """Collects one row per check; :meth:`assert_all` fails the chapter if any row does not hold.

    ``measured`` and ``bound`` must come from separate computations (a measurement against a
    bound derived from the theorem), so every row can fail. ``rtol``/``atol`` absorb float
    rounding only; pass ``atol=0`` for integer or exactly representable comparisons.
    """

    rows: list[dict[str, object]] = field(default_factory=list)

    def check(self, claim: str, quantity: str, measured: float, bound: float,
              relation: str = "<=", rtol: float = 1e-9, atol: float = 1e-12) -> bool:
        """Add a row ``measured <relation> bound`` and return whether it holds."""
        if relation not in _RELATIONS:
            raise ValueError(f"relation must be one of {_RELATIONS}, got {relation!r}")
        m, b = float(measured), float(bound)
        slack = rtol * max(abs(m), abs(b)) + atol
        if math.isnan(m) or math.isnan(b):
            holds = False
        elif relation == "<=":
            holds = m <= b + slack
        elif relation == ">=":
            holds = m >= b - slack
        else:
            holds = abs(m - b) <= slack
        self.rows.append({"theorem": claim, "quantity": quantity, "measured": m,
                          "relation": relation, "bound": b, "holds": bool(holds)})
        return bool(holds)

    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame."""
        return pd.DataFrame(self.rows, columns=["theorem", "quantity", "measured", "relation", "bound", "holds"])

    def failures(self) -> pd.DataFrame:
        """Rows that do not hold."""
        df = self.frame()
        return df[~df["holds"].astype(bool)]

    def assert_all(self) -> None:
        """Raise ``AssertionError`` listing every row that does not hold (or if there are no rows)."""
        if not self.rows:
            raise AssertionError("the verification table is empty: nothing was checked")
        bad = self.failures()
        if len(bad):
            raise AssertionError("theorem checks failed:\n" + bad.to_string())


def worst(values: np.ndarray | list[float], kind: str = "max") -> float:
    """The worst case of a measured array: its max (for an upper bound) or min (for a lower one)."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        raise ValueError("values must be non-empty, got an empty array")
    if kind not in ("max", "min"):
        raise ValueError(f"kind must be 'max' or 'min', got {kind!r}")
    return float(arr.max() if kind == "max" else arr.min())
