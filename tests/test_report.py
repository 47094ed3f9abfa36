import re
import json
import math

import pytest

import pandas as pd

from dtbook.report import (VerificationTable, failing_rows, format_number, read_verification, table_passes,
                                theorem_margin, worst)


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
    assert margins[3] == pytest.approx(0.9 / 0.95)   # bound / measured for a lower bound
    # bound() is the old name of theorem(): its rows are theorem rows, flagged legacy
    assert {r["kind"] for r in t.rows} == {"theorem"} and all(r["legacy"] for r in t.rows)
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
    assert "outside its reach" in t.rows[-1]["note"]
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
    assert s["counts"] == {"theorem": 0, "identity": 2, "counterexample": 2, "observation": 1}
    assert s["failures"] == 2
    assert s["closest"] is None  # an identity is never the closest call
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
    # the fault runner counts every non-observation row that does not hold: bound() rows are theorem rows
    assert list(table["kind"]) == ["theorem", "theorem"] and list(table["status"]) == ["holds", "FAILS"]


def test_html_groups_by_kind_and_formats_numbers():
    t = VerificationTable()
    t.identity("Lemma 5.1", "drop − score", 3.3e-16, 1e-12, box="Lemma 1.2")
    t.bound("Thm", "error", 0.02, 0.05, value_range=(0, 0.5))
    html = t.to_html()
    assert html.index("Theorem checks") < html.index("Identities")
    assert "e-16" not in html and "nan" not in html.lower()
    assert format_number(3.3e-16, 1e-12) == "0" and format_number(12.0) == "12"
    assert format_number(2.5e7 + 0.5) == "2.5·10^7" and format_number(float("nan")) == "—"
    assert theorem_margin(0.5, 1.0, "<=") == 0.5
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


def test_one_margin_convention_and_its_formatter():
    from dtbook.report import format_margin, identity_margin
    # measured / bound for an upper bound, bound / measured for a lower one, from the reach's low end
    assert theorem_margin(0.02, 0.05, "<=") == pytest.approx(0.4)
    assert theorem_margin(4.0, 1.0, ">=") == pytest.approx(0.25)
    assert theorem_margin(0.5, 0.75, "<=", origin=0.25) == pytest.approx(0.5)
    assert theorem_margin(0.0, 0.0, "<=") == 1.0 and theorem_margin(0.1, 0.0, "<=") == math.inf
    assert theorem_margin(0.0, 0.5, ">=") == math.inf and theorem_margin(0.7, 0.5, ">=") == pytest.approx(5 / 7)
    assert math.isnan(theorem_margin(float("nan"), 1.0, "<="))
    assert identity_margin(0.0, 0.0) == 0.0 and identity_margin(1e-3, 0.0) == math.inf
    assert identity_margin(3e-16, 1e-12) == pytest.approx(3e-4)
    cases = [(0.0, "theorem", "0"), (0.0, "identity", "exact"), (3e-4, "identity", "< 0.001"),
             (1e-51, "theorem", "< 0.001"), (0.4237, "theorem", "0.424"), (0.99991, "theorem", "> 0.999"),
             (1.0, "theorem", "at the bound"), (1.0, "identity", "at the tolerance"), (1.2, "theorem", "1.2 (fails)"),
             (2.5e4, "theorem", "2.5·10^4 (fails)"), (math.inf, "theorem", "fails (no room)"),
             (math.inf, "observation", "beyond the bound"), (3.0, "observation", "3"),
             (float("nan"), "theorem", "—"), (None, "observation", "—")]
    for margin, kind, text in cases:
        assert format_margin(margin, kind) == text, (margin, kind)
    assert format_margin(1.0, "theorem", tight=True) == "tight by construction"
    with pytest.raises(ValueError, match="kind must be"):
        format_margin(0.5, "bound")
    for margin in (0.0, 1e-51, 1e-300, 0.5, 1.0, 7.0, 1e60, math.inf):
        for kind in ("theorem", "identity", "counterexample", "observation"):
            text = format_margin(margin, kind)
            assert "inf" not in text and "e-" not in text and "e+" not in text, (margin, kind, text)


def toy_table() -> VerificationTable:
    t = VerificationTable()
    t.theorem("[BGLT20] Theorem 1", "excess error at t = 32", 0.012, 0.05, reach=(0.0, 1.0), box="thm-bglt-1",
              measured_by="dtcore.cube.exact_error", bound_by="dtcore.bounds.bglt_eps", worst_case="b = 16")
    t.theorem("[BGLT20] Theorem 1", "excess error at t = 8", 0.03, 0.05, reach=(0.0, 1.0), box="thm-bglt-1",
              measured_by="dtcore.cube.exact_error", bound_by="dtcore.bounds.bglt_eps", worst_case="b = 8, t = 8")
    t.theorem("[BGLT20] Corollary", "training error", 0.0, 0.0, reach=(0.0, 1.0), box="cor-bglt-1",
              measured_by="dtcore.cube.exact_error", bound_by="zero")          # an equality claim
    t.theorem("[BGLT20] Lemma 2", "labels", 900, 1000, reach=(0, 1024), box="lem-bglt-2",
              measured_by="dtcore.local.count", bound_by="dtcore.bounds.labels",
              tight_by_construction="the worst member attains the bound")
    t.identity("Lemma 5.1", "max |drop − score|", 1e-12, 1e-12, computed_by=("a.f", "b.g"))  # margin 1
    t.observation("[BDM20] Theorem 1", "m asked / m used", 1e23, why="vacuous at any feasible size")
    return t


def test_the_closest_call_is_a_theorem_check_with_room():
    t = toy_table()
    closest = t.closest_theorem_check()
    assert closest["quantity"] == "excess error at t = 8" and closest["margin"] == pytest.approx(0.6)
    # the identity at margin 1 and the two rows at their bound by construction are never named
    assert [r["tight"] != "" for r in t.rows[:4]] == [False, False, True, True]
    assert "least room is [BGLT20] Theorem 1 (excess error at t = 8), at margin 0.6, worst case found at b = 8, t = 8" \
        in t.summary_sentence()
    assert "4 theorem checks, 1 identity and 0 counterexamples; 1 observation is shown" in t.summary_sentence()
    assert "0 of the 4 theorem checks name a worse output under which they fail" in t.summary_sentence()
    # a failing theorem row is the closest call, and the summary says first that it fails
    t.theorem("[BGLT20] Theorem 1", "excess error at t = 4", 0.06, 0.05, reach=(0.0, 1.0), box="thm-bglt-1",
              measured_by="dtcore.cube.exact_error", bound_by="dtcore.bounds.bglt_eps")
    assert t.closest_theorem_check()["margin"] == pytest.approx(1.2)
    s = t.summary()
    assert s.markdown.startswith('<span style="color:#C0392B') and "1 of 3 fail" in s.markdown
    assert t.summary_sentence().startswith("1 counted row does not hold.")
    empty = VerificationTable()
    empty.identity("X", "|a − b|", 0.0, 0.0)
    assert empty.closest_theorem_check() is None and "least room" not in empty.summary_sentence()


def test_summary_links_boxes_colours_room_and_folds_the_full_table():
    t = toy_table()
    s = t.summary()
    md = s.markdown
    assert s.counts == {"theorem": 4, "identity": 1, "counterexample": 0, "observation": 1}
    assert s["counts"] == s.counts and s["closest"]["margin"] == pytest.approx(0.6)
    _, summary_part, full = md.split(":::{dropdown}")
    # one line per statement, folded (each box carries its verdict line): its verdict, the hardest row's
    # coloured margin and its witness; a colour key
    assert summary_part.count("{prf:ref}`[BGLT20] Theorem 1 <thm-bglt-1>`") == 1
    assert "| holds, room ×1.67 |" in summary_part
    assert "| b = 8, t = 8 |" in summary_part and "Margin colours:" in summary_part
    assert 'color:#5E3C99;font-weight:600">0.6<' in summary_part           # 0.5 <= margin < 0.9
    assert "tight by construction" in summary_part and "#666666" in summary_part
    assert "1 identity (two independent computations agree)" in summary_part and md.count("Margin =") == 1
    assert "1 observation (shown, not counted)" in summary_part
    # the full table, grouped by kind, inside the collapsed dropdown; labels only as {prf:ref}
    assert full.rstrip().endswith(":::") and "Theorem checks (a printed claim" in full
    assert full.count("{prf:ref}`") == 4
    bare = md.replace("{prf:ref}`thm-bglt-1`", "").replace("{prf:ref}`cor-bglt-1`", "")
    bare = re.sub(r"\{prf:ref\}`[^`<]*<[a-z0-9-]+>`", "", bare)
    assert "thm-bglt-1" not in bare and "cor-bglt-1" not in bare
    assert "\\|drop − score\\|" in full   # a | in a quantity does not break the table
    assert "inf" not in md.lower().replace("influence", "") and "nan" not in md.lower()
    assert s.mimebundle() == {"text/markdown": md, "text/plain": s.sentence}
    # box names (legacy rows) stay text
    t.bound("Thm", "error", 0.02, 0.05, value_range=(0, 0.5), box="Lemma 1.1")
    assert "| Thm (Lemma 1.1) |" in t.summary().markdown


def test_a_summary_is_shown_once(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: shown.append((obj, raw)))
    s = toy_table().summary()
    s._ipython_display_()
    s._ipython_display_()   # e.g. close_chapter(...) as the last line of the closing cell
    assert shown == [(s.mimebundle(), True)]


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
        failing_rows(pd.DataFrame({"kind": ["theorem"], "holds": holds}))


def test_an_observation_may_show_a_reference_value_without_a_relation():
    t = VerificationTable()
    t.observation("Lemma 3.2", "fitted exponent", 0.3, 1.0, relation="", why="timings are noisy")
    row = t.frame().iloc[0]
    assert row["relation"] == "" and row["bound"] == 1.0 and math.isnan(row["margin"])
    with pytest.raises(ValueError, match="relation"):
        t.observation("Lemma 3.2", "fitted exponent", 0.3, 1.0, relation="~", why="timings are noisy")
