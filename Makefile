# Entry points: `make book`, `make test` and `make full` (every chapter at the papers' scale). Each creates .venv from requirements.txt if needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: book test full clean venv

venv: $(STAMP)

# dtcore goes into .venv as an editable install of this clone (pyproject.toml), with the pinned
# build backend; a dtcore-root.pth left by older versions of this file is removed.
$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	rm -f "$$($(PY) -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/dtcore-root.pth"
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	# the book's support (dtbook/) is not in the wheel: the venv finds it in this clone through a .pth
	echo "$(CURDIR)" > "$$($(PY) -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/dtbook-checkout.pth"
	touch $(STAMP)

book: $(STAMP)
	$(VENV)/bin/jupyter-book build . --all --builder html -W -n --keep-going  # --all: see tests/test_html.py
	rm -f _build/html/.build-failed; touch _build/html/.build-ok  # tests/test_html.py reuses a fresh build
	@echo "Book written to _build/html/index.html"

# nbmake runs every notebook of _toc.yml once, in a copy of the book's sources (_executed/, so
# book/ stays clean); the HTML book that tests/test_html.py and tests/test_browser.py read is then
# built from those executed notebooks without running them again (tests/conftest.py).
# --maxschedchunk 1: xdist hands out tests one or two at a time, so the notebooks (collected first)
# spread over both workers instead of all going to the first one in a single batch.
NBMAKE := --nbmake --nbmake-timeout=900 --overwrite
test: $(STAMP)
	$(PY) -m pytest -n $(JOBS) --maxschedchunk 1 $(NBMAKE) tests _executed/book

# Every chapter at scale="full" through papermill (on a Dask cluster when DTCORE_DASK_SCHEDULER
# is set): executed notebooks, logs, CSVs and summary.md under _build/full/. Hours, not minutes.
# Deletes results/<chapter>/ of each chapter it runs first. ARGS="-p seed 7" passes parameters.
SCALE ?= full
CHAPTERS ?=
ARGS ?=
full: $(STAMP)
	$(PY) scripts/run_full.py --scale $(SCALE) $(if $(CHAPTERS),--chapters $(CHAPTERS)) $(ARGS)

clean:
	rm -rf _build _executed results dist build
