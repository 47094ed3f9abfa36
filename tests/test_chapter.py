import math
import pathlib

import pytest

from dtbook.chapter import REPO_ROOT, Param, ParameterSpec, closest_name, injected_parameters, results_dir, save_results
from dtbook.specs import APPENDIX_FAULTS, SPECS, readme_tables

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


def test_results_land_in_the_clone_being_run(tmp_path, monkeypatch):
    import pandas as pd
    clone = tmp_path / "other_clone"  # another clone, sharing this clone's dtcore (one venv for two clones)
    (clone / "book").mkdir(parents=True)
    (clone / "_toc.yml").write_text("root: book/intro\n")
    for cwd in (clone / "book", clone):  # papermill --cwd book, or run from the clone's root
        monkeypatch.chdir(cwd)
        assert results_dir("demo") == clone / "results" / "demo"
    monkeypatch.chdir(tmp_path)  # outside any clone: the one dtcore comes from
    assert results_dir("demo") == REPO_ROOT / "results" / "demo"
    monkeypatch.setattr("dtbook.chapter.REPO_ROOT", tmp_path / "site-packages")  # an installed wheel
    out = save_results("demo", {"a": pd.DataFrame({"x": [1]})})
    assert out == tmp_path / "results" / "demo"
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
    assert not missing, ("README parameter tables differ from dtbook/specs.py for " + ", ".join(missing)
                         + "; regenerate them with `.venv/bin/python -m dtbook.specs`")
    assert readme_tables() in readme


def test_close_chapter_shows_the_summary_and_glues_its_counts(monkeypatch, tmp_path):
    import time

    import pandas as pd

    from dtbook import chapter
    from dtbook.report import VerificationTable

    shown, glued = [], {}
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: shown.append(obj))
    monkeypatch.setattr("myst_nb.glue", lambda name, value, display=True: glued.__setitem__(name, value))
    (tmp_path / "_toc.yml").write_text("root: book/intro\n")  # the results go to the clone being run
    (tmp_path / "book").mkdir()
    monkeypatch.chdir(tmp_path)
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


# What IPython's ``In`` holds when papermill ran a notebook: its own parameters cell, the cell
# papermill injected (first line exactly "# Parameters"), then the cell that resolves them.
PAPERMILL_HISTORY = ["", "# Parameters (papermill).\nseed = 0\nn = None\n",
                     "# Parameters\nsead = 7\nn_functon: int = 10\n", "globals().update(SPEC.resolve(globals()))"]


def test_injected_names_are_read_from_the_input_history():
    assert injected_parameters({"In": PAPERMILL_HISTORY}) == ["sead", "n_functon"]
    assert injected_parameters({"In": PAPERMILL_HISTORY[:2]}) == []      # nothing injected: a plain run
    assert injected_parameters({"seed": 3}) == []                       # not IPython


@pytest.mark.parametrize("passed, message", [
    (["sead"], "unknown parameter 'sead'; did you mean 'seed'?"),
    (["eps_grd", "n"], "unknown parameter 'eps_grd'; did you mean 'eps'?"),
    (["sizes_list"], "unknown parameter 'sizes_list'; did you mean 'sizes'?"),
    (["rng"], "unknown parameter 'rng'. The parameters of demo are seed, scale, n, eps, sizes, impurity, save_results."),
])
def test_an_unknown_parameter_is_refused_with_the_closest_name(passed, message):
    with pytest.raises(ValueError) as info:
        SPEC.resolve({}, passed=passed)
    assert message in str(info.value)


def test_unknown_names_are_found_in_a_papermill_run_before_any_value_is_checked():
    with pytest.raises(ValueError, match="unknown parameter 'sead'; did you mean 'seed'") as info:
        SPEC.resolve({"In": PAPERMILL_HISTORY, "scale": "huge", "sead": 7})
    assert "'n_functon'" in str(info.value)
    assert SPEC.resolve({"In": PAPERMILL_HISTORY[:2]})["seed"] == 0


@pytest.mark.parametrize("name, known, expected", [
    ("eta", ["eta_grid", "delta"], "eta_grid"),
    ("n_function", ["n", "n_functions"], "n_functions"),
    ("chapter", ["c", "chapters"], "chapters"),
    ("repetitions", ["scale", "chapters", "jobs"], None),
])
def test_closest_name(name, known, expected):
    assert closest_name(name, known) == expected


def test_pages_without_sweeps_say_they_run_locally(monkeypatch, capsys):
    local = [spec.chapter for spec in SPECS.values() if spec.runs_locally]
    assert {"06_real_data", "appendix_performance", "appendix_faults"} <= set(local)
    monkeypatch.setenv("DTCORE_DASK_SCHEDULER", "tcp://127.0.0.1:8786")
    APPENDIX_FAULTS.resolve({})
    assert "runs on the local cores only" in capsys.readouterr().out
    assert "Runs on the local cores only" in APPENDIX_FAULTS.markdown()


def _uses_sweep(chapter: str) -> bool:
    """Whether a page's code, or an experiments module or package it imports, calls ``sweep(``."""
    import json
    import re

    cells = json.loads((REPO_ROOT / "book" / f"{chapter}.ipynb").read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    modules = set()
    for dotted, listed in re.findall(r"dtbook\.experiments(?:\.(\w+)|[ \t]+import[ \t]+\(?([\w ,]+))", code):
        modules |= {dotted} if dotted else {m.strip().split(" as ")[0] for m in listed.split(",")}
    root = REPO_ROOT / "dtbook" / "experiments"
    sources = [code] + [(root / f"{m}.py").read_text() for m in modules if (root / f"{m}.py").is_file()]
    # a chapter package (experiments/<m>/): every module of it
    sources += [path.read_text() for m in modules if (root / m).is_dir() for path in sorted((root / m).glob("*.py"))]
    return any(re.search(r"\bsweep\(", source) for source in sources)


@pytest.mark.parametrize("chapter", sorted(SPECS))
def test_a_page_either_sweeps_or_says_it_runs_locally(chapter):
    """DTCORE_DASK_SCHEDULER reaches a page only through sweep: a page without one must say so."""
    says_local = bool(SPECS[chapter].runs_locally)
    assert _uses_sweep(chapter) != says_local, (
        f"{chapter}: " + ("it sweeps, yet its spec says it runs locally" if says_local else
                          "it never calls sweep, so its spec must say why it runs locally (runs_locally)"))


def test_run_summary_states_scale_seed_and_every_parameter():
    from dtbook.specs import CH2_LEARNABILITY as spec

    resolved = spec.resolve({"scale": "quick", "seed": 7}, passed=["scale", "seed"])
    text = spec.run_summary(resolved)
    assert "**quick scale**, seed 7" in text and "appendix_reproducing" in text and "make" not in text
    for name in spec.names():
        if name not in ("scale", "save_results"):
            assert f"| `{name}` |" in text
    assert "\\|S\\|" in text  # a | inside a cell is escaped, not replaced


# --- the notebooks' parameters cells are generated from the specifications ----------------------------

def _parameters_cell(chapter: str) -> str:
    import json
    notebook = json.loads((REPO_ROOT / "book" / f"{chapter}.ipynb").read_text())
    cells = [c for c in notebook["cells"] if "parameters" in c["metadata"].get("tags", [])]
    assert len(cells) == 1, f"{chapter} must have one cell tagged 'parameters'"
    return "".join(cells[0]["source"])


@pytest.mark.parametrize("chapter", sorted(SPECS))
def test_each_parameters_cell_is_the_generated_one(chapter):
    from dtbook.specs import parameter_cell
    assert _parameters_cell(chapter) == parameter_cell(SPECS[chapter]), (
        f"book/{chapter}.ipynb: re-generate its parameters cell with "
        "`.venv/bin/python -m dtbook.specs --update-notebooks`")


@pytest.mark.parametrize("chapter", sorted(SPECS))
def test_papermill_lists_every_parameter_with_its_default_and_help(chapter, caplog):
    import logging
    import papermill
    spec = SPECS[chapter]
    with caplog.at_level(logging.DEBUG, logger="papermill"):
        inferred = papermill.inspect_notebook(str(REPO_ROOT / "book" / f"{chapter}.ipynb"))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], \
        [r.getMessage() for r in caplog.records]  # no "Unable to parse line"
    assert list(inferred) == spec.names()
    by_name = {p.name: p for p in (*spec.common, *spec.params)}
    for name, entry in inferred.items():
        assert entry["help"], f"{chapter}: {name} has no help"
        if name == "scale":
            continue
        param = by_name[name]
        assert param.help.replace("`", "") in entry["help"]
        default = repr(param.quick) if param.default("full") == param.quick else "None"
        assert entry["default"] == default
        if default == "None":  # the comment gives both scales' defaults
            assert f"None: {param.quick!r} at quick scale, {param.full!r} at full" in entry["help"]


def test_parameter_cell_refuses_an_equals_sign_in_a_comment():
    spec = ParameterSpec("demo", "Demo", (Param("p", "real", 0.5, help="Pr[x = 1]", low=0.0, high=1.0),))
    with pytest.raises(ValueError, match="no '=' in a comment"):
        spec.parameter_cell()


def test_papermill_help_notebook_on_the_command_line():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "papermill", "--help-notebook",
                          str(REPO_ROOT / "book" / "04_product_spaces.ipynb")],
                         capture_output=True, text=True, check=True)
    assert "biases: Unknown type (default [0.5, 0.3, 0.1])" in out.stdout
    assert "Unable to parse" not in out.stdout + out.stderr
