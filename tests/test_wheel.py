"""dtcore installs as a package: `python -m build` makes a wheel that a fresh venv installs offline.

The wheel is built from a copy of the sources (the repository is left alone) with the build
backend of this environment (``--no-isolation``: no download). A new venv, without pip and
outside the repository, installs it with ``pip --no-index --no-deps``; the venv sees this
environment's packages through a ``.pth`` file (not its ``dtcore``: that is an editable install,
whose hook a ``.pth``-added folder does not run), and every dependency the wheel declares must be
met by them. Then the README's Python snippets run in the new venv, importing the installed dtcore.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from tests.test_readme_api import _blocks

REPO = Path(__file__).resolve().parents[1]


#: Run in the new venv: every requirement of the installed wheel (no extra) is met.
DEPENDENCIES_MET = """
from importlib.metadata import requires, version
from packaging.requirements import Requirement
for requirement in map(Requirement, requires("dtcore")):
    if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
        assert requirement.specifier.contains(version(requirement.name)), (requirement, version(requirement.name))
        print("dependency met:", requirement, version(requirement.name))
"""


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def test_the_wheel_installs_offline_in_a_fresh_venv_and_runs_the_readme(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(REPO / "dtcore", source / "dtcore", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path / "dist"),
                            str(source)], capture_output=True, text=True, env=_clean_env())
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("dtcore-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # the algorithms, the estimators and the audits; the book's support stays in the clone
    assert "dtcore/__init__.py" in names and "dtcore/audit/replay.py" in names and "dtcore/estimators.py" in names
    assert not any(n.startswith("dtbook/") for n in names), [n for n in names if n.startswith("dtbook/")][:3]
    assert not any(n.startswith(("tests/", "book/", "scripts/")) for n in names)
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    # plot_tree's light extra: matplotlib alone (its error message names it)
    assert "Provides-Extra: plot" in metadata and "matplotlib>=3.11; extra == \"plot\"" in metadata

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # this environment's installed packages (every site-packages folder on its path), not the repository
    folders = [p for p in sys.path if Path(p).name == "site-packages" and REPO not in Path(p).parents]
    (site / "dependencies.pth").write_text("\n".join([sysconfig.get_paths()["purelib"], *folders]) + "\n")
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index",
                                "--no-deps", "--no-cache-dir", "--disable-pip-version-check", str(wheel)],
                               capture_output=True, text=True, env=_clean_env(), cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]

    script = "import dtcore\nprint('dtcore from', dtcore.__file__)\n" + DEPENDENCIES_MET + "\n".join(_blocks())
    ran = subprocess.run([str(python), "-c", script], capture_output=True, text=True, env=_clean_env(), cwd=tmp_path,
                         timeout=300)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    first = ran.stdout.splitlines()[0]
    assert first.startswith("dtcore from " + str(site)), first  # the wheel's copy, not the repository's
    assert "dependency met: numpy>=" in ran.stdout and "dependency met: scikit-learn>=" in ran.stdout
    assert len(ran.stdout.splitlines()) > 8
