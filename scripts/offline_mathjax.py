"""Sphinx extension: serve MathJax 3 from the book's own ``_static/mathjax`` (no network).

The files come from the pinned PyPI package ``django-static-mathjax`` (MathJax 3.2.2, Apache-2.0
licence, copied next to the files as ``LICENSE``), which ``requirements.txt`` installs with the
rest of the environment; nothing is vendored in the repository and the build needs no network.
The package's Python module is called ``mathjax``; its ``static/mathjax/es5`` folder is the same
tree the MathJax CDN serves.

Only what ``tex-chtml.js`` can load at run time is copied (about 9 MB): the combined component,
the TeX extensions it autoloads, the CommonHTML fonts, and the menu, accessibility and speech
modules the MathJax menu loads on demand. ``mathjax_path`` in ``_config.yml`` points at
``mathjax/tex-chtml.js``, which Sphinx resolves against ``_static``.

Enabled in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

#: Parts of MathJax's ``es5`` tree that ``tex-chtml.js`` may load at run time.
MATHJAX_PARTS: tuple[str, ...] = (
    "tex-chtml.js",
    "input/tex/extensions",
    "output/chtml",
    "a11y",
    "ui",
    "sre",
    "adaptors",
)

#: Sub-folder of ``_static`` the files land in; ``mathjax_path`` must start with it.
TARGET_FOLDER = "mathjax"


def mathjax_source() -> Path:
    """Return the ``es5`` folder of the installed MathJax package.

    Raises ``RuntimeError`` naming the pinned package when it is not installed.
    """
    try:
        import mathjax  # the module of the PyPI package django-static-mathjax
    except ImportError as err:  # pragma: no cover - environment error
        raise RuntimeError(
            "offline MathJax needs the PyPI package django-static-mathjax "
            "(pinned in requirements.txt); run `make venv`"
        ) from err
    source = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (source / "tex-chtml.js").is_file():  # pragma: no cover - broken install
        raise RuntimeError(f"{source} has no tex-chtml.js; reinstall django-static-mathjax")
    return source


def copy_mathjax(outdir: Path) -> Path:
    """Copy the run-time MathJax files into ``outdir/_static/mathjax`` and return that folder."""
    source = mathjax_source()
    target = outdir / "_static" / TARGET_FOLDER
    for part in MATHJAX_PARTS:
        src = source / part
        dst = target / part
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    shutil.copy2(source.parent / "LICENSE", target / "LICENSE")
    return target


def _on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    if app.builder.format == "html" and exception is None:
        copy_mathjax(Path(app.outdir))


def _check_config(app: Sphinx, config: Any) -> None:
    # A CDN address here would silently bring the network back: refuse it.
    path = str(config.mathjax_path)
    if not path.startswith(TARGET_FOLDER + "/"):
        raise ValueError(
            f"mathjax_path must be a local path under _static/{TARGET_FOLDER}/ "
            f"(e.g. '{TARGET_FOLDER}/tex-chtml.js'), got {path!r}"
        )


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _check_config)
    app.connect("build-finished", _on_build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
