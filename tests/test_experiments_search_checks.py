"""The checks of the chapters' searches and bound formulas (chapters 1 and 4, issue 36): they hold, and they fail
when the search is weakened or a bound's constant is off."""

from __future__ import annotations

import pandas as pd
import pytest

from dtcore import bounds
from dtbook.experiments import ch01, ch04
from dtbook.report import VerificationTable


@pytest.fixture(scope="module")
def ch01_n3():
    return ch01.suprema.exhaustive_suprema(n=3), ch01.search_checks.brute_force_suprema(n=3)


def test_ch01_brute_force_equals_the_search_at_n3(ch01_n3):
    suprema, brute = ch01_n3
    by_key = suprema.set_index("key")["sup_ratio"]
    for key, value in brute.items():
        assert value == pytest.approx(float(by_key[key]), abs=1e-9)
    assert brute["OSSS inequality"] == pytest.approx(1.0) and brute["Lemma 5.4"] == pytest.approx(0.25)


def test_ch01_check_search_fails_for_a_weaker_search(ch01_n3):
    suprema, brute = ch01_n3
    n4 = suprema.assign(sup_ratio=[0.5, 1.0, 4 / 6, 0.5, 0.25])  # what the n <= 4 search reports
    table = VerificationTable()
    ch01.search_checks.check_search(table, n4, suprema, brute)
    assert table.failures().empty and {r["kind"] for r in table.rows} == {"identity"}
    weaker = n4.assign(sup_ratio=[0.5, 1.0, 4 / 6, 0.25, 0.25])  # Lemma 5.2's ε taken short of its supremum
    bad = VerificationTable()
    ch01.search_checks.check_search(bad, weaker, suprema.assign(sup_ratio=[0.5, 1.0, 0.6, 0.25, 0.25]), brute)
    assert list(bad.failures()["result"]) == ["Lemma 5.2 (search)"] * 2


def test_ch01_reference_members_by_hand():
    refs = ch01.search_checks.reference_members()
    eps = refs["Lemma 5.4"][0]
    assert eps * __import__("math").log2(8 / eps) == pytest.approx(1.0) and 0.18 < eps < 0.19


@pytest.mark.parametrize("chapter", [ch01, ch04])
def test_printed_bounds_agree_and_a_constant_off_by_two_fails(chapter, monkeypatch):
    table = VerificationTable()
    chapter.search_checks.check_printed_bounds(table)
    assert table.failures().empty and len(table.rows) >= 9
    if chapter is ch01:
        original = bounds.blt20_lemma52_score_lower
        monkeypatch.setattr(bounds, "blt20_lemma52_score_lower", lambda e, L, s: 2 * original(e, L, s))
    else:
        original = bounds.mgbh26_lemma45_score_lower
        monkeypatch.setattr(bounds, "mgbh26_lemma45_score_lower",
                            lambda c, j, d, a, paper_form=False: original(c, j, d, a, True))
    bad = VerificationTable()
    chapter.search_checks.check_printed_bounds(bad)
    assert len(bad.failures()) == 1


def test_ch04_dictator_reaches_every_supremum_and_a_missing_step_fails():
    refs = ch04.search_checks.reference_suprema()
    assert refs[("Lemma C.1", "as printed")] == pytest.approx(2.0)
    assert refs[("Lemma C.2", "first inequality")] == pytest.approx(0.9)
    frame = pd.DataFrame([{"result": r, "form": f, "sup_ratio": v} for (r, f), v in refs.items()])
    table = VerificationTable()
    ch04.search_checks.check_search(table, frame)
    assert table.failures().empty and len(table.rows) == len(refs)
    weaker = frame.assign(sup_ratio=frame["sup_ratio"].where(frame["result"] != "Lemma 4.4", 0.9))
    bad = VerificationTable()
    ch04.search_checks.check_search(bad, weaker)
    assert len(bad.failures()) == 3
