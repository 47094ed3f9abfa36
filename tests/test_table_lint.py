"""The lint of verification tables (issue 23): each escape hatch is found, a clean table passes.

For every pattern a one-row table is built that the lint rejects: from the row as the chapter's
CSV or JSON records it (what a test over every chapter reads), or from the legacy ``bound()``
alias; and the new row methods refuse the same row at once.
"""

import io
import math

import pandas as pd
import pytest

from dtbook.report import (LINT_PATTERNS, VerificationTable, assert_lint_clean, lint_table,
                                provenance_names, read_verification, shared_functions)


def exact_error(tree):  # stand-ins for the functions that compute each side of a row
    return 0.0


def paper_bound(eps):
    return eps


def clean_table() -> VerificationTable:
    t = VerificationTable()
    t.theorem("[BGLT20] Theorem 1", "excess error of MiniBatchTopDown", 0.012, 0.05, reach=(0.0, 1.0),
              measured_by=exact_error, bound_by=paper_bound, worst_case="b = 16, t = 32", box="thm-bglt-1",
              fails_under=("the label-inverted tree", 0.62))
    t.theorem("[BLT20] Lemma 5.4", "score / (Inf / (s log s))", 3.2, 1.0, relation=">=", reach=(0.0, math.inf),
              measured_by="dtcore.audit.scores", bound_by="dtcore.analysis.total_influence", box="lem-blt-5-4",
              fails_under=("the least influential variable", 0.0))
    t.theorem("[BLT20] Lemma 5.2", "error / bound", 0.4, 1.0, reach=(0.0, math.inf),
              reach_why="the bound shrinks with the tree, so the ratio has no a-priori ceiling",
              measured_by="dtcore.cube.exact_error", bound_by="dtcore.bounds.blt_lemma52",
              fails_under=("the one-leaf tree", 2.5))
    t.identity("Lemma 5.1", "max |drop − score|", 3e-16, 1e-12,
               computed_by=("dtcore.topdown.score", "dtcore.cube.exact_error"))
    t.counterexample("[MGBH26] Lemma C.1", "max influence", 0.5, 1.0, relation=">=", reach=(0.0, 1.0))
    t.observation("[BDM20] Theorem 1", "sample size asked / used", 1e23, why="the bound exceeds any feasible m")
    return t


def records(table: VerificationTable) -> list[dict]:
    return table.frame().to_dict("records")


def one_row(**changes) -> list[dict]:
    """The first (clean) theorem row of ``clean_table`` as its CSV records it, with ``changes``."""
    row = records(clean_table())[0]
    row.update(changes)
    return [row]


def legacy_bound_row(value_range=(0.0, math.inf), relation="<=") -> list[dict]:
    t = VerificationTable()
    t.bound("Lemma 5.2", "error / bound", 0.4, 1.0, value_range=value_range, relation=relation)
    return records(t)


def patterns(table) -> list[str]:
    return sorted({f.pattern for f in lint_table(table)})


# one single-row table per escape hatch the issue lists, and the pattern the lint must name
REJECTED = {
    "same function on both sides": (one_row(measured_by="dtcore.local.depth_cap",
                                            bound_by="depth_cap"), "same-function"),
    "the algorithm's own statistic": (one_row(reads_rule="stop rule"), "own-rule"),
    "(0, inf) for a ratio": (one_row(reach_high=math.inf, reach="[0, ∞)"), "wide-reach"),
    "legacy value_range (0, inf)": (legacy_bound_row(), "wide-reach"),
    "a bound every value satisfies": (one_row(reach_high=0.04), "vacuous"),
    "no provenance": (one_row(measured_by="", bound_by=""), "no-provenance"),
    "legacy bound() row": (legacy_bound_row((0.0, 2.0)), "no-provenance"),
    "observation without reason": ([{**records(clean_table())[-1], "note": ""}], "no-reason"),
    "pre-issue-23 kind": (one_row(kind="bound"), "unknown-kind"),
}


@pytest.mark.parametrize("case", sorted(REJECTED))
def test_each_escape_hatch_is_rejected(case):
    rows, pattern = REJECTED[case]
    assert len(rows) == 1
    assert pattern in patterns(rows), lint_table(rows)
    with pytest.raises(AssertionError, match=pattern):
        assert_lint_clean(rows)


def test_a_clean_table_passes_and_survives_its_csv_and_json(tmp_path, monkeypatch):
    t = clean_table()
    assert lint_table(t) == []
    t.assert_all(allow_legacy=False)
    buffer = io.StringIO()
    t.frame().to_csv(buffer, index=False)
    assert lint_table(pd.read_csv(io.StringIO(buffer.getvalue()))) == []
    path = tmp_path / "v.json"
    monkeypatch.setenv("DTCORE_VERIFICATION_JSON", str(path))
    t.assert_all()
    rows = read_verification(path)  # JSON writes inf as null: the lint reads it as unbounded
    assert list(rows["kind"])[:3] == ["theorem"] * 3 and lint_table(rows) == []
    assert patterns(VerificationTable.from_records(rows)) == []
    # and a wide reach still shows after the JSON round trip
    wide = [{**rows.iloc[0].to_dict(), "reach_high": None}]
    assert patterns(wide) == ["wide-reach"]


def test_the_row_methods_refuse_what_the_lint_rejects():
    t = VerificationTable()
    common = dict(reach=(0.0, 1.0), measured_by=exact_error, bound_by=paper_bound)
    with pytest.raises(ValueError, match="same-function"):
        t.theorem("Depth cap", "depth", 3, 4, reach=(0, 10), measured_by="dtcore.local.depth_cap",
                  bound_by="depth_cap")
    with pytest.raises(ValueError, match="same-function"):
        t.theorem("X", "error", 0.1, 0.2, reach=(0.0, 1.0), measured_by=exact_error, bound_by=exact_error)
    with pytest.raises(ValueError, match="own-rule"):
        t.theorem("[BLT20] Theorem 3", "error at stop", 0.04, 0.05, reads_rule="stop rule", **common)
    with pytest.raises(ValueError, match="wide-reach"):
        t.theorem("Lemma 5.2", "error / bound", 0.4, 1.0, reach=(0.0, math.inf), measured_by=exact_error,
                  bound_by=paper_bound)
    with pytest.raises(ValueError, match="no-provenance"):
        t.theorem("X", "error", 0.1, 0.2, reach=(0.0, 1.0), measured_by="", bound_by=paper_bound)
    with pytest.raises(ValueError, match="record it as an observation"):
        t.theorem("X", "labels", 100, 5312, reach=(0, 1024), measured_by=exact_error, bound_by=paper_bound)
    with pytest.raises(ValueError, match="same-function"):
        t.identity("X", "|a − b|", 0.0, 1e-12, computed_by=("dtcore.cube.exact_error", "cube.exact_error"))
    assert t.rows == []
    # a re-read rule is allowed where it belongs: an identity (the rule was applied) or an observation
    assert t.identity("[BLT20] BuildTopDownDT", "error at stop − ε, if positive", 0.0, 0.0, reads_rule="stop rule",
                      computed_by=("dtcore.topdown.build", "dtcore.cube.exact_error"))
    t.observation("[BLT20] Theorem 3", "error at stop / ε", 0.8, 1.0, reads_rule="stop rule",
                  why="the stop rule guarantees it")
    assert lint_table(t) == []


def test_legacy_rows_pass_assert_all_until_it_is_made_strict():
    t = VerificationTable()
    t.bound("Lemma 5.2", "error / bound", 0.4, 1.0, value_range=(0.0, math.inf))
    t.identity("Var", "|a − b|", 0.0, 1e-12)  # no computed_by: legacy
    assert patterns(t) == ["no-power", "no-provenance", "wide-reach"]
    assert all(f.legacy for f in lint_table(t, power=False))
    t.assert_all()  # the chapters that still call bound() keep passing
    with pytest.raises(AssertionError, match="escape hatches"):
        t.assert_all(allow_legacy=False)
    # a row added by hand (not through the row methods) is never excused
    t.rows.append({**t.rows[0], "legacy": False, "measured_by": "f", "bound_by": "f"})
    with pytest.raises(AssertionError, match="same-function"):
        t.assert_all()


def test_a_theorem_row_without_a_failing_worse_output_has_no_power():
    t = VerificationTable()
    common = dict(reach=(0.0, 1.0), measured_by=exact_error, bound_by=paper_bound)
    t.theorem("A", "error", 0.1, 0.2, **common)                                    # no worse output
    t.theorem("C", "error", 0.1, 0.2, fails_under=("the label-inverted tree", 0.9), **common)
    # a hand-made row whose worse output passes too (the row methods would make it an observation)
    t.rows.append({**t.rows[1], "result": "B", "fails_under_value": 0.15, "fails_under_fails": False})
    assert patterns(t) == ["no-power"] and len(lint_table(t)) == 2
    assert lint_table(t, power=False) == []
    frame = t.frame().set_index("result")
    assert list(frame["fails_under_fails"]) == [False, True, False]
    t.assert_all(allow_no_power=True)  # only where a page is asked to show rows without power
    with pytest.raises(AssertionError, match="no-power"):
        t.assert_all(allow_no_power=False)
    with pytest.raises(ValueError, match="fails_under"):
        t.theorem("D", "error", 0.1, 0.2, fails_under="the inverted tree", **common)
    # a worse output that passes too, or a value the quantity cannot take (NaN, beyond its reach),
    # shows nothing: the row is shown as an observation that says so
    t.theorem("E", "error", 0.1, 0.2, fails_under=("the second-best split", 0.15), **common)
    t.theorem("F", "error", 0.1, 0.2, fails_under=("a broken computation", math.nan), **common)
    t.theorem("G", "error", 0.1, 0.2, fails_under=("an error above one", 1.5), **common)
    assert [r["kind"] for r in t.rows[3:]] == ["observation"] * 3
    assert "the second-best split, a worse output, gives 0.15" in t.rows[3]["note"]
    # a failing measurement stays a failing theorem row whatever its worse output
    t.theorem("H", "error", 0.3, 0.2, fails_under=("the second-best split", 0.15), **common)
    assert t.rows[-1]["kind"] == "theorem" and not t.rows[-1]["holds"]
    t.rows = t.rows[:3]
    # the power survives the CSV a chapter writes
    buffer = io.StringIO()
    t.frame().to_csv(buffer, index=False)
    assert len(lint_table(pd.read_csv(io.StringIO(buffer.getvalue())))) == 2


def test_provenance_names_and_shared_functions():
    assert provenance_names(exact_error) == ("tests.test_table_lint.exact_error",)
    assert provenance_names(["a.f, b.g", paper_bound]) == ("a.f", "b.g", "tests.test_table_lint.paper_bound")
    assert provenance_names(None) == () and provenance_names("") == ()
    assert shared_functions("dtcore.local.depth_cap", "depth_cap") == ["dtcore.local.depth_cap"]
    assert shared_functions("dtcore.bounds.lemma52", "dtcore.audit.lemma52") == []
    assert shared_functions(["top_down", "exact_error"], "bounds.depth_cap") == []
    with pytest.raises(ValueError, match="provenance must name functions"):
        provenance_names([3])
    assert set(LINT_PATTERNS) >= {case[1] for case in REJECTED.values()}
