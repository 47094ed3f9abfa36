"""[BLT21] Fact 4.3 as printed (strict <) refuted at m = 2, every hypothesis checked in exact arithmetic.

The printed statement: for any p: {0,1}^n → [0,1], any sample S° of m points (x_i, y_i) with 0 ≤ y_i ≤ 1, any
corrupted sample S formed by replacing an arbitrary η-fraction of the points of S° by arbitrary bounded points,
and any err: [0,1] × [0,1] → [0,1],  |E_{S°} err(p(x), y) − E_S err(p(x), y)| < η.  The proofs of Theorems 3 and 4
use it in the form ≤ η, which holds by algebra (each replaced point moves the average by at most 1/m). The strict
form fails as soon as every replaced loss goes from 0 to 1: here on {0,1}^1, m = 2, η = 1/2.

Everything below is pure Python on :class:`fractions.Fraction`: no NumPy, no code of :mod:`dtcore` or of any
search, so the witness is checked independently of whatever found it.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

from ...report import VerificationTable

#: The witness: n = 1, the clean sample ((0, 0), (1, 0)), its second point replaced by (1, 1), η = 1/2, p ≡ 0 and
#: the 0/1 loss err(a, b) = 1[a ≠ b].
WITNESS_TEXT = ("n = 1, m = 2, η = 1/2: S° = ((0, 0), (1, 0)), S = ((0, 0), (1, 1)), p ≡ 0, err(a, b) = 1[a ≠ b]")


def fact_4_3_witness() -> dict[str, Any]:
    """[BLT21] Fact 4.3 at the witness :data:`WITNESS_TEXT`: every hypothesis of the printed statement checked, and
    both averages, in exact arithmetic.

    Returns ``hypotheses`` (name → whether it holds), ``clean_average``, ``corrupted_average``, ``difference``
    (|E_S° err − E_S err|), ``eta``, ``m`` and ``printed_allows``: the largest difference the printed strict < η
    allows here, η − 1/m (the averages of m losses in {0, 1} are multiples of 1/m, so "< η" is "≤ η − 1/m")."""
    n, m, eta = 1, 2, Fraction(1, 2)
    cube = list(product((0, 1), repeat=n))
    clean = [((0,), Fraction(0)), ((1,), Fraction(0))]
    corrupted = [((0,), Fraction(0)), ((1,), Fraction(1))]

    def p(x: tuple[int, ...]) -> Fraction:
        return Fraction(0)

    def err(a: Fraction, b: Fraction) -> Fraction:
        return Fraction(0) if a == b else Fraction(1)

    replaced = [i for i in range(m) if clean[i] != corrupted[i]]
    losses_clean = [err(p(x), y) for x, y in clean]
    losses_corrupted = [err(p(x), y) for x, y in corrupted]
    clean_average = sum(losses_clean, Fraction(0)) / m
    corrupted_average = sum(losses_corrupted, Fraction(0)) / m
    grid = [Fraction(k, 10) for k in range(11)]   # err's two branches give 0 or 1 whatever (a, b); shown on a grid
    hypotheses = {
        "p maps {0,1}^n into [0, 1]": all(0 <= p(x) <= 1 for x in cube),
        "S° has m = 2 points of {0,1}^n with labels in [0, 1]": len(clean) == m and all(
            x in cube and 0 <= y <= 1 for x, y in clean),
        "S replaces an η-fraction of S° (η m = 1 point) by a bounded point": (
            len(corrupted) == m and (eta * m).denominator == 1 and len(replaced) == eta * m
            and all(corrupted[i][0] in cube and 0 <= corrupted[i][1] <= 1 for i in replaced)),
        "err maps [0, 1] × [0, 1] into [0, 1] (its two branches are 0 and 1)": all(
            err(a, b) in (0, 1) for a, b in product(grid, repeat=2)),
    }
    return {"hypotheses": hypotheses, "clean_average": clean_average, "corrupted_average": corrupted_average,
            "difference": abs(clean_average - corrupted_average), "eta": eta, "m": m,
            "printed_allows": eta - Fraction(1, m)}


def check_fact_4_3(table: VerificationTable, witness: dict[str, Any]) -> None:
    """Fact 4.3 as printed refuted at the witness: a counterexample row that stands only if every hypothesis holds
    in exact arithmetic (otherwise its measured value is NaN and the row fails)."""
    failed = [name for name, ok in witness["hypotheses"].items() if not ok]
    measured = float(witness["difference"]) if not failed else float("nan")
    table.counterexample("Fact 4.3 (as printed: strict <)",
                         f"|E_S° err(p(x), y) − E_S err(p(x), y)| at m = {witness['m']}, η = {witness['eta']}; the "
                         f"printed < η allows at most η − 1/m = {witness['printed_allows']} (the averages are "
                         f"multiples of 1/m)", measured, float(witness["printed_allows"]), relation="<=",
                         reach=(0.0, 1.0), box="thm-blt21-4",
                         worst_case=(WITNESS_TEXT + "; every hypothesis checked in exact arithmetic: "
                                     + "; ".join(witness["hypotheses"])),
                         note=("hypotheses that fail: " + ", ".join(failed)) if failed else
                              f"the difference is {witness['difference']} = η: the non-strict ≤ η holds with equality")


def fact_4_3_glue(witness: dict[str, Any]) -> dict[str, Any]:
    """The witness for the text: its two averages, their difference and η."""
    return {"ch3_f43_clean": str(witness["clean_average"]), "ch3_f43_corrupted": str(witness["corrupted_average"]),
            "ch3_f43_difference": str(witness["difference"]), "ch3_f43_eta": str(witness["eta"]),
            "ch3_f43_hypotheses": len(witness["hypotheses"])}
