import pytest

from dtcore.report import VerificationTable, worst


def test_rows_hold_and_fail():
    t = VerificationTable()
    assert t.check("a", "q", 0.5, 1.0, "<=")
    assert not t.check("b", "q", 1.5, 1.0, "<=")
    assert t.check("c", "q", 2.0, 1.0, ">=")
    assert t.check("d", "q", 1.0 + 1e-15, 1.0, "==")
    assert not t.check("e", "q", float("nan"), 1.0)
    assert list(t.failures()["theorem"]) == ["b", "e"]
    with pytest.raises(AssertionError, match="theorem checks failed"):
        t.assert_all()


def test_empty_table_fails_and_bad_relation():
    with pytest.raises(AssertionError, match="empty"):
        VerificationTable().assert_all()
    with pytest.raises(ValueError, match="relation must be"):
        VerificationTable().check("a", "q", 1, 1, "<")
    assert worst([1, 3, 2]) == 3 and worst([1, 3, 2], "min") == 1
    with pytest.raises(ValueError, match="non-empty"):
        worst([])
