# Two commands do all the set-up on a fresh machine (Python 3.11):
#   make book   create .venv, install, build the HTML book
#   make test   same set-up, then pytest, a strict book build and the student edition, a check of the built HTML,
#               and nbval over every notebook under a second BLAS kernel
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
NOTEBOOKS := $(shell find book -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' | sort)

.PHONY: book book-student assignments floor-check test pytest doctest kernels nbval strict-book html-check pdf pdf-student pdf-check notebooks benchmark clean

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet -e ".[book]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 > /dev/null
	touch $(STAMP)

# MathJax for Node (package-lock.json): the build typesets every formula (book/_ext/prerender_math.py).
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	touch $(NODE_STAMP)

book: $(STAMP) $(NODE_STAMP)
	$(BIN)/jupyter-book build . --path-output . --quiet
	@echo "Book built: $(CURDIR)/_build/html/index.html"
	@echo "Code for readers (book/_ext/reader_code.py): $(CURDIR)/_build/html/code/"

# The student edition: the same book with every exercise's solution left out at the source. It is
# built from copies of the sources whose notebooks have an empty answer cell in place of each
# solution (book/_ext/student_source.py), so no page, download, search text or image holds one.
STUDENT_SRC := _build/student/source

book-student: $(STAMP) $(NODE_STAMP)
	rm -rf _build/student
	$(BIN)/python book/_ext/student_source.py $(STUDENT_SRC)
	$(BIN)/jupyter-book build $(STUDENT_SRC) --path-output _build/student --warningiserror --keep-going --quiet
	@echo "Student edition built: $(CURDIR)/_build/student/_build/html/index.html"

# The nbgrader course tree, one assignment per chapter, generated from the chapters' exercises and
# course/spec.yml (course/make_assignments.py): $(COURSE)/source/<chapter>/<chapter>.ipynb. A notebook
# edited since it was generated is kept (the command says so and fails); FORCE=1 overwrites it.
# Then, from the project root, no environment activated (the targets call the environment's nbgrader
# with its bin/ on PATH, where nbgrader finds alembic):
#   make course-release A=<chapter>      release/<chapter>/ for the students (FORCE=1 to regenerate)
#   (each student's notebook goes to $(COURSE)/submitted/<student id>/<chapter>/<chapter>.ipynb)
#   make course-autograde A=<chapter>    run the hidden tests, grades into $(COURSE)/gradebook.db
#   make course-feedback A=<chapter>     feedback/<student>/<chapter>/*.html (hidden tests' code left out)
#   make course-export                   $(COURSE)/grades.csv
COURSE ?= course
.PHONY: course-release course-autograde course-feedback course-export
NBGRADER = cd "$(COURSE)" && PATH="$(abspath $(BIN)):$$PATH" MPLBACKEND=Agg "$(abspath $(BIN))/python" -m nbgrader

assignments: $(STAMP)
	mkdir -p "$(COURSE)"
	test -f "$(COURSE)/nbgrader_config.py" || cp course/nbgrader_config.py "$(COURSE)/"
	$(BIN)/python course/make_assignments.py "$(COURSE)/source" $(if $(FORCE),--force)

course-release: $(STAMP)
	@test -n "$(A)" || { echo "make course-release A=<chapter>, e.g. A=ch01_calibration_sharpness"; exit 2; }
	@if [ -e "$(COURSE)/release/$(A)" ] && [ -z "$(FORCE)" ]; then \
	  echo "$(COURSE)/release/$(A) exists: make course-release A=$(A) FORCE=1 regenerates it"; exit 1; fi
	$(NBGRADER) generate_assignment "$(A)" --force

course-autograde: $(STAMP)
	@test -n "$(A)" || { echo "make course-autograde A=<chapter>"; exit 2; }
	$(NBGRADER) autograde "$(A)" --create $(if $(FORCE),--force)

course-feedback: $(STAMP)
	@test -n "$(A)" || { echo "make course-feedback A=<chapter>"; exit 2; }
	$(NBGRADER) generate_feedback "$(A)" $(if $(FORCE),--force)

course-export: $(STAMP)
	$(NBGRADER) export

test: pytest doctest kernels strict-book book-student html-check nbval

pytest: $(STAMP) $(NODE_STAMP)
	MPLBACKEND=Agg $(BIN)/python -m pytest tests --ignore=tests/built_book --ignore=tests/pdf

# Every docstring's Examples section runs as it is printed.
doctest: $(STAMP)
	MPLBACKEND=Agg $(BIN)/python -m pytest --doctest-modules -p no:cacheprovider companion

# The tests of floating-point extremes again under two named OpenBLAS kernels: Haswell (most AVX2
# laptops) and Sandybridge (AVX). A test that passes on one kernel only fails here, whatever the
# machine's own kernel is (pytest above runs under it).
EXTREME_TESTS := tests/test_extreme_known.py tests/test_extreme_values.py tests/test_bounds_extremes.py tests/test_from_scratch.py
kernels: $(STAMP)
	for kernel in Haswell Sandybridge; do \
	  OPENBLAS_CORETYPE=$$kernel MPLBACKEND=Agg $(BIN)/python -m pytest -p no:cacheprovider $(EXTREME_TESTS) || exit 1; done

# Stored outputs are written natively (make notebooks); nbval re-executes them under
# OpenBLAS's Prescott kernel (valid on every x86-64 CPU), so an output that depends on
# the BLAS kernel fails here on any machine.
nbval: $(STAMP)
	OPENBLAS_CORETYPE=Prescott $(BIN)/python -m pytest --nbval -p no:cacheprovider $(NOTEBOOKS)

strict-book: $(STAMP) $(NODE_STAMP)
	rm -rf _build/html _build/doctrees
	$(BIN)/jupyter-book build . --path-output . --warningiserror --keep-going --quiet

# What the reader sees (after strict-book and book-student): unparsed MyST, doubled reference
# words, unresolved labels, unreferenced figures, exercises without collapsed solutions (and
# none in the student edition); then every page in headless Chromium with no network.
html-check: $(STAMP)
	$(BIN)/python -m pytest -p no:cacheprovider tests/built_book

# The whole book as one PDF: the single-page HTML build printed by headless Chromium
# (the same MathJax typesetting, figures and numbering as the web book; no TeX installation needed).
pdf: $(STAMP) $(NODE_STAMP)
	rm -rf _build/singlehtml
	$(BIN)/jupyter-book build . --path-output . --builder singlehtml --quiet
	$(BIN)/python book/_ext/print_pdf.py _build/singlehtml _build/pdf/book.pdf

# The student edition printed by the same route: _build/pdf/student.pdf, "Student edition" on its title page.
pdf-student: $(STAMP) $(NODE_STAMP)
	$(BIN)/python book/_ext/student_source.py $(STUDENT_SRC)
	rm -rf _build/student/_build/singlehtml
	$(BIN)/jupyter-book build $(STUDENT_SRC) --path-output _build/student --builder singlehtml --quiet
	$(BIN)/python book/_ext/print_pdf.py _build/student/_build/singlehtml _build/pdf/student.pdf --edition student

# Both PDFs, each checked (tests/pdf runs every check on each; the student PDF also for solutions).
pdf-check: pdf pdf-student
	$(BIN)/python -m pytest -p no:cacheprovider tests/pdf

# Re-execute every notebook in place (after changing the code it calls).
notebooks: $(STAMP)
	for nb in $(NOTEBOOKS); do \
	  $(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	    --ExecutePreprocessor.timeout=600 "$$nb" || exit 1; done

# The companion's wheel at the floor of its dependency ranges (pyproject.toml): a fresh environment with
# numpy 1.25, scipy 1.11, scikit-learn 1.6 runs the doctests and the estimators' check suites (tests/floor_check.py).
floor-check: $(STAMP)
	$(BIN)/python tests/floor_check.py

# Side-by-side timings (alternating, best of five) against floors, peers and baselines; writes
# book/benchmarks.md. The peers (QuaPy, MAPIE, crepes) are optional and installed here only.
benchmark: $(STAMP)
	$(BIN)/python -m pip install --quiet -r benchmarks/requirements.txt
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf _build
