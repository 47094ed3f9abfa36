import json
import math

import pytest

import pandas as pd

from dtcore.book.report import (VerificationTable, bound_margin, failing_rows, format_number, read_verification,
                                table_passes, worst)


def test_bound_rows_hold_fail_and_report_margins():
    t = VerificationTable()
    assert t.bound("Thm", "error", 0.02, 0.05, value_range=(0, 0.5))
    assert not t.bound("Thm", "error", 0.06, 0.05, value_range=(0, 0.5))
    assert t.bound("Lemma", "score / bound", 4.0, 1.0, relation=">=", value_range=(0, math.inf))
    assert t.bound("Lemma", "fraction", 0.95, 0.9, relation=">=", value_range=(0, 1))
    margins = t.frame()["margin"].tolist()
    assert margins[0] == pytest.approx(0.4)          # 0.02 / 0.05
    assert margins[1] == pytest.approx(1.2)          # beyond the bound
    assert margins[2] == pytest.approx(0.25)         # 1 / 4
    assert margins[3] == pytest.approx(0.5)          # (1 - 0.95) / (1 - 0.9)
    assert list(t.failures()["result"]) == ["Thm"]
    with pytest.raises(AssertionError, match="theorem checks failed"):
        t.assert_all()


def test_vacuous_bound_is_refused():
    t = VerificationTable()
    with pytest.raises(ValueError, match="record it as an observation"):
        t.bound("Theorem 3", "size", 100, 2**20, value_range=(1, 2**12))       # bound above every tree
    with pytest.raises(ValueError, match="record it as an observation"):
        t.bound("L2", "excess error", 0.1, 1.3, value_range=(0, 1))
    with pytest.raises(ValueError, match="record it as an observation"):
        t.bound("X", "ratio", 2.0, 0.0, relation=">=", value_range=(0, math.inf))
    with pytest.raises(ValueError, match="relation must be"):
        t.bound("X", "q", 1, 1, relation="==", value_range=(0, 2))
    assert t.rows == []


def test_measurement_outside_its_range_fails():
    t = VerificationTable()
    assert not t.bound("Thm", "error", 0.7, 0.4, value_range=(0, 0.5))
    assert not t.bound("Thm", "error", -0.1, 0.4, value_range=(0, 0.5))
    assert "outside its range" in t.rows[-1]["note"]
    assert not t.bound("Thm", "error", float("nan"), 0.4, value_range=(0, 0.5))


def test_identity_counterexample_and_observation():
    t = VerificationTable()
    assert t.identity("Lemma 5.1", "max |drop − score|", 3e-16, 1e-12)
    assert t.rows[-1]["margin"] == pytest.approx(3e-4)
    assert not t.identity("Lemma 5.1", "max |drop − score|", 1e-3, 1e-12)
    assert t.counterexample("Lemma C.1", "max influence", 0.5, 1.0, relation=">=", value_range=(0, 1))
    assert not t.counterexample("Lemma C.1", "max influence", 1.0, 1.0, relation=">=", value_range=(0, 1))
    t.observation("Theorem 3", "log2 size / log2 bound", 0.1, 1.0, why="the bound exceeds 2^n")
    with pytest.raises(ValueError, match="why must"):
        t.observation("X", "q", 1.0, why="")
    s = t.summary()
    assert s["counts"] == {"bound": 0, "identity": 2, "counterexample": 2, "observation": 1}
    assert s["failures"] == 2
    assert s["closest"]["margin"] > 1e8
    assert "4 of the 5 rows are checks that can fail" in t.summary_sentence()


def test_observations_are_never_asserted_and_empty_tables_fail():
    t = VerificationTable()
    t.observation("Theorem", "size", 10, 1e30, why="vacuous")
    with pytest.raises(AssertionError, match="no counted row"):
        t.assert_all()
    t.bound("Thm", "error", 0.0, 0.1, value_range=(0, 0.5))
    t.assert_all()


def test_assert_all_writes_json_for_the_runner(tmp_path, monkeypatch):
    path = tmp_path / "v.json"
    monkeypatch.setenv("DTCORE_VERIFICATION_JSON", str(path))
    monkeypatch.delenv("DTCORE_VERIFICATION_STOP_EARLY", raising=False)
    t = VerificationTable()
    t.bound("Thm", "error", 0.01, 0.1, value_range=(0, 0.5))
    t.assert_all()
    assert json.loads(path.read_text())[0]["holds"] is True
    assert not t.bound("Thm", "error", 0.3, 0.1, value_range=(0, 0.5))  # no early stop without the second variable
    with pytest.raises(AssertionError):
        t.assert_all()
    table = read_verification(path)
    assert list(failing_rows(table)["result"]) == ["Thm"] and not table_passes(table)


def test_html_groups_by_kind_and_formats_numbers():
    t = VerificationTable()
    t.identity("Lemma 5.1", "drop − score", 3.3e-16, 1e-12, box="Lemma 1.2")
    t.bound("Thm", "error", 0.02, 0.05, value_range=(0, 0.5))
    html = t.to_html()
    assert html.index("Bounds") < html.index("Identities")
    assert "e-16" not in html and "nan" not in html.lower()
    assert format_number(3.3e-16, 1e-12) == "0" and format_number(12.0) == "12"
    assert format_number(2.5e7 + 0.5) == "2.5·10^7" and format_number(float("nan")) == "—"
    assert bound_margin(0.5, 1.0, "<=", (0, 1)) == 0.5
    assert worst([1, 3, 2]) == 3 and worst([1, 3, 2], "min") == 1
    with pytest.raises(ValueError, match="non-empty"):
        worst([])


def test_under_the_fault_suite_the_first_failing_row_stops_the_chapter(tmp_path, monkeypatch):
    path = tmp_path / "v.json"
    monkeypatch.setenv("DTCORE_VERIFICATION_JSON", str(path))
    monkeypatch.setenv("DTCORE_VERIFICATION_STOP_EARLY", "1")
    t = VerificationTable()
    assert t.bound("Thm", "error", 0.01, 0.1, value_range=(0, 0.5))
    with pytest.raises(AssertionError, match="theorem checks failed"):
        t.identity("Lemma", "drop − score", 0.5, 1e-12)
    assert [r["result"] for r in json.loads(path.read_text())] == ["Thm", "Lemma"]


def test_one_pass_rule_for_tables_and_their_files(tmp_path):
    t = VerificationTable()
    t.bound("Thm", "error", 0.02, 0.05, value_range=(0, 0.5))
    t.counterexample("Claim", "printed bound", 2.0, 1.0)                    # refuted: the row holds
    t.counterexample("Claim 2", "printed bound", 0.5, 1.0)                  # the claim holds: the row fails
    t.observation("Obs", "ratio", 3.0, why="no theorem behind it")
    assert list(failing_rows(t.frame())["result"]) == ["Claim 2"]
    t.frame().to_csv(tmp_path / "verification.csv", index=False)            # as save_results writes it
    from_csv = read_verification(tmp_path / "verification.csv")
    assert list(failing_rows(from_csv)["result"]) == ["Claim 2"] and not table_passes(from_csv)
    assert table_passes(from_csv.iloc[[0, 1, 3]])
    assert not table_passes(from_csv.iloc[[3]])                             # nothing counted: not a pass


@pytest.mark.parametrize("holds", [["True"], ["true"], [1], [None]])
def test_pass_rule_refuses_holds_that_are_not_booleans(holds):
    with pytest.raises(ValueError, match="holds"):
        failing_rows(pd.DataFrame({"kind": ["bound"], "holds": holds}))
