import math
import pathlib

import pytest

from dtcore.book.chapter import REPO_ROOT, Param, ParameterSpec, results_dir, save_results
from dtcore.book.specs import SPECS, readme_tables

SPEC = ParameterSpec("demo", "Demo", (
    Param("n", "int", 12, 16, "dimension", low=4, high=20),
    Param("eps", "real", 0.05, help="error", low=0.0, high=0.5),
    Param("sizes", "int_list", [4, 8], [4, 8, 16], "sizes", low=2, high=lambda p: 2 ** p["n"], sort=True),
    Param("impurity", "str", "gini", help="impurity", choices=("gini", "entropy")),
))


def test_defaults_follow_the_scale():
    quick = SPEC.resolve({"n": None, "eps": None, "sizes": None})
    assert quick == {"scale": "quick", "seed": 0, "save_results": False, "n": 12, "eps": 0.05, "sizes": [4, 8],
                     "impurity": "gini"}
    full = SPEC.resolve({"scale": "full", "sizes": [16, 4]})
    assert full["n"] == 16 and full["sizes"] == [4, 16]


@pytest.mark.parametrize("values, message", [
    ({"eps": 0.7}, "eps must be in (0, 0.5), got 0.7"),
    ({"n": 3}, "n must be an integer in [4, 20], got 3"),
    ({"sizes": [1]}, "sizes[0] must be an integer in [2, 4096], got 1"),
    ({"sizes": []}, "sizes must list at least 1"),
    ({"sizes": "[4, 8]"}, "-y \"sizes: [4, 8]\""),
    ({"save_results": "false"}, "save_results must be True or False"),
    ({"seed": -1}, "seed must be an integer in [0, inf]"),
    ({"scale": "huge"}, "scale must be 'quick' or 'full'"),
    ({"impurity": "gain"}, "impurity must be one of ['gini', 'entropy']"),
    ({"n": 4.5}, "n must be an integer"),
])
def test_bad_parameters_raise_a_named_value_error(values, message):
    with pytest.raises(ValueError) as info:
        SPEC.resolve(values)
    assert message in str(info.value)


def test_dependent_ranges_use_resolved_parameters():
    with pytest.raises(ValueError, match=r"sizes\[1\] must be an integer in \[2, 16\]"):
        SPEC.resolve({"n": 4, "sizes": [4, 32]})


def test_results_land_in_the_repository_whatever_the_cwd(tmp_path, monkeypatch):
    import pandas as pd
    monkeypatch.chdir(tmp_path)
    assert results_dir("demo") == REPO_ROOT / "results" / "demo"
    monkeypatch.setattr("dtcore.book.chapter.REPO_ROOT", tmp_path / "repo")
    out = save_results("demo", {"a": pd.DataFrame({"x": [1]})})
    assert (out / "a.csv").read_text().splitlines() == ["x", "1"]


def test_every_chapter_spec_resolves_at_both_scales():
    for spec in SPECS.values():
        for scale in ("quick", "full"):
            values = spec.resolve({"scale": scale})
            assert set(values) == set(spec.names())
            assert not any(isinstance(v, float) and math.isnan(v) for v in values.values())


def test_readme_shows_the_generated_parameter_tables():
    readme = (pathlib.Path(REPO_ROOT) / "README.md").read_text()
    missing = [spec.chapter for spec in SPECS.values() if spec.markdown() not in readme]
    assert not missing, ("README parameter tables differ from dtcore/book/specs.py for " + ", ".join(missing)
                         + "; regenerate them with `.venv/bin/python -m dtcore.book.specs`")
    assert readme_tables() in readme


def test_close_chapter_shows_the_summary_and_glues_its_counts(monkeypatch, tmp_path):
    import time

    import pandas as pd

    from dtcore.book import chapter
    from dtcore.book.report import VerificationTable

    shown, glued = [], {}
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: shown.append(obj))
    monkeypatch.setattr("myst_nb.glue", lambda name, value, display=True: glued.__setitem__(name, value))
    monkeypatch.setattr(chapter, "REPO_ROOT", tmp_path)
    t = VerificationTable()
    t.theorem("[X] Theorem 1", "error", 0.02, 0.05, reach=(0.0, 1.0), measured_by="a.f", bound_by="b.g",
              box="thm-x-1")
    t.identity("[X] Lemma 2", "|a − b|", 0.0, 1e-12, computed_by=("a.f", "b.g"))
    t.observation("[X] Theorem 3", "m", 10.0, 1e20, why="vacuous")
    summary = chapter.close_chapter("demo", t, {"runs": pd.DataFrame({"x": [1]})}, save=True,
                                    started=time.perf_counter(), glue_prefix="demo")
    assert len(shown) == 1 and shown[0]["text/markdown"] == summary.markdown
    assert "{prf:ref}`thm-x-1`" in summary.markdown and ":::{dropdown}" in summary.markdown
    assert glued["demo_verification_summary"] == summary.sentence
    assert "2 of the 3 rows are checks that can fail: 1 theorem check, 1 identity" in summary.sentence
    assert glued["demo_checks_counted"] == 2 and glued["demo_theorem_checks"] == 1
    csv = pd.read_csv(tmp_path / "results" / "demo" / "verification.csv")
    assert list(csv["kind"]) == ["theorem", "identity", "observation"] and csv.loc[0, "measured_by"] == "a.f"
    summary._ipython_display_()   # the closing cell's value: not shown a second time
    assert len(shown) == 1
