"""Sessions: ``tests`` (pytest + doctests, then mypy), ``docs`` (both editions of the executed site,
checked), ``catalogues`` (update the English translation catalogues), ``lint``
(ruff, format check), ``typecheck`` (mypy), ``browser`` (the built site in headless
Chromium), ``pdf`` (a PDF of each edition), ``bench`` (benchmark records).

Every session installs with ``constraints/cpu.txt``, which pins the CPU build of torch so a
machine without a GPU never downloads CUDA wheels, and ``constraints/lock.txt``, which pins
every other package (nox's own too, for the README's ``pip install``): a new release reaches
the build only through a reviewed change of that file.
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests", "docs"]

CONSTRAINTS = ("-c", "constraints/cpu.txt", "-c", "constraints/lock.txt")
MYPY = "mypy>=1.10"
CFFCONVERT = "cffconvert==2.0.0"


@nox.session
def tests(session: nox.Session) -> None:
    """Unit, property and golden tests, the doctests in src/, and the kernel tests (on CPU
    in Triton's interpreter); then mypy on src/, as ``typecheck`` does, in this session's
    environment (installing torch and triton again for it costs CI two minutes). The docs
    extra is installed too: the English edition's tests build small Sphinx projects."""
    session.install(*CONSTRAINTS, "-e", ".[kernels,test,docs]", MYPY)
    # only for the CFF 1.2.0 schema it ships (tests/test_citation.py); its own pins
    # (jsonschema<4) would break the docs stack, and its code is not used
    session.install("--no-deps", *CONSTRAINTS, CFFCONVERT)
    session.run("python", "-m", "pytest", *session.posargs)
    session.run("mypy")


EDITIONS = {
    # edition: (sphinx language, HTML folder, doctrees; executed notebooks go beside them)
    "zh": ("zh_CN", "docs/_build/html", "docs/_build/doctrees"),
    "en": ("en", "docs/_build/html/en", "docs/_build/en/doctrees"),
}


@nox.session
def docs(session: nox.Session) -> None:
    """Build both editions of the site, every page executed, then check them: the Chinese
    one at docs/_build/html, the English one (from docs/locale) at docs/_build/html/en.

    Warnings are errors (an untranslated message is one) and a failing cell fails the
    build. Pass ``-- zh`` or ``-- en`` to build one edition, ``-- fresh`` to drop the
    previous builds and execution caches first.
    """
    session.install(*CONSTRAINTS, "-e", ".[kernels,docs]")
    if "fresh" in session.posargs:
        session.run("python", "-c", "import shutil; shutil.rmtree('docs/_build', True)")
    chosen = [e for e in EDITIONS if e in session.posargs] or list(EDITIONS)
    session.run("python", "-m", "docs.checks.translations")
    for edition in chosen:
        language, html, doctrees = EDITIONS[edition]
        # The doctree cache lives beside the HTML, not in it, so it is never published.
        session.run(
            "sphinx-build", "-W", "--keep-going", "-n", "-b", "html",
            "-D", f"language={language}", "-d", doctrees, "docs", html,
        )  # fmt: skip
        session.run("python", "-m", "docs.checks.executed", "docs", str(Path(doctrees).parent))
    one = ["--edition", chosen[0]] if len(chosen) == 1 else []
    session.run("python", "-m", "docs.checks.links", "docs/_build/html", *one)
    if len(chosen) == len(EDITIONS):
        session.run("python", "-m", "docs.checks.editions", "docs/_build/html")


@nox.session
def catalogues(session: nox.Session) -> None:
    """Extract the pages' prose (gettext) and update the English catalogues in
    docs/locale, then the package's words (labels, conf text) in its own catalogue,
    src/infrabook/locale, compiled to the .mo the package reads (labels still written
    ``"key": ("中文", "English")`` are converted first: the English moves into it). New
    messages come in empty, changed ones are marked fuzzy, and
    ``docs.checks.translations`` (run by ``docs``) fails until they are translated."""
    session.install(*CONSTRAINTS, "-e", ".[kernels,docs]")
    session.run("sphinx-build", "-q", "-b", "gettext", "docs", "docs/_build/gettext")
    session.run(
        "sphinx-intl", "update", "-p", "docs/_build/gettext", "-l", "en", "-d", "docs/locale"
    )
    session.run("python", "-m", "infrabook.catalogue")


@nox.session
def browser(session: nox.Session) -> None:
    """Serve the built site on 127.0.0.1 and check every page in headless Chromium, with the
    checks in ``docs/checks/``: that it works (``browser``), that it is accessible (``a11y``:
    axe-core in both colour schemes at 390 and 1280 px, the keyboard path, the phone drawer),
    and that the heaviest page's first load stays within budget (``weight``, writing its record
    to the session's temporary folder; run it by hand to update ``docs/_data/weight.json``), and
    that the live calculators compute what ``infrabook.live`` computes (``live``). Both
    editions: the English one (``docs/_build/html/en``) with English searches and words.

    Needs Debian's chromium (``apt-get install chromium``); Playwright drives it and never
    downloads a browser of its own; axe-playwright-python ships axe-core. Run ``nox -s docs``
    and ``nox -s pdf`` first (every page links the PDFs, and the check follows the links).
    """
    session.install(*CONSTRAINTS, "playwright>=1.40", "axe-playwright-python>=0.1.8")
    # docs.checks.live compares the page's tables with infrabook.live, run here as in the
    # browser; numpy comes along unused.
    session.install(*CONSTRAINTS, "-e", ".")
    session.run("python", "-m", "docs.checks.browser", "docs/_build/html", *session.posargs)
    session.run("python", "-m", "docs.checks.live", "docs/_build/html")
    session.run("python", "-m", "docs.checks.a11y", "docs/_build/html", *session.posargs)
    # The English edition: the same walk, each width and each colour scheme once (its layout
    # is the Chinese one's, with other words); its calculators are checked in English; axe
    # on the front page and the chapters with the most tables, figures and calculators (the
    # markup is the Chinese edition's, checked on every page above; CI has 20 minutes).
    en = "docs/_build/html/en"
    session.run("python", "-m", "docs.checks.browser", en, "--modes", "390 light,1280 dark")
    session.run("python", "-m", "docs.checks.live", en, env={"INFRABOOK_LANG": "en"})
    session.run(
        "python", "-m", "docs.checks.a11y", en, "--pages", "index.html", "chapters/02-*",
        "chapters/05-2-*", "appendix/glossary.html",
    )  # fmt: skip
    weight = f"{session.create_tmp()}/weight.json"
    session.run(
        "python", "-m", "docs.checks.weight", "docs/_build/html", "--out", weight, *session.posargs
    )


@nox.session
def pdf(session: nox.Session) -> None:
    """The book to take away: ``infrabook-zh.pdf`` and ``infrabook-en.pdf``, written into the
    built site (``docs/_build/html`` and ``docs/_build/html/en``), then checked
    (``docs.checks.pdf``). Run ``nox -s docs`` first: each edition is built again as one
    page (``singlehtml``) from the HTML build's doctrees, nothing executed a second time,
    and printed by Debian's headless Chromium through Playwright (see ``docs/pdf/build.py``).
    Pass ``-- zh`` or ``-- en`` for one edition. ``INFRABOOK_CHROMIUM`` names another
    Chromium or Chrome, or ``playwright`` for Playwright's own (downloaded).
    """
    # kernels too: docs/conf.py checks the benchmark records at start-up, and the record
    # reader belongs to infrabook.bench, which imports torch
    session.install(
        *CONSTRAINTS,
        "-e",
        ".[kernels,docs]",
        "playwright>=1.40",
        "pypdf>=5.0",
        "fonttools>=4.50",
        # fontTools reads MathJax's WOFF2 faces with it (docs/pdf/fonts.py)
        "brotli>=1.1",
    )
    if os.environ.get("INFRABOOK_CHROMIUM") == "playwright":
        # where no Chromium can be installed (Read the Docs: Ubuntu's is a snap)
        session.run("playwright", "install", "chromium")
    chosen = [e for e in EDITIONS if e in session.posargs] or list(EDITIONS)
    for edition in chosen:
        language, html, doctrees = EDITIONS[edition]
        session.run("python", "docs/pdf/build.py", edition, language, html, doctrees)
    pdfs = [f"{EDITIONS[e][1]}/infrabook-{e}.pdf" for e in chosen]
    session.run("python", "-m", "docs.checks.pdf", *pdfs)
    session.run("python", "-m", "docs.checks.links", "docs/_build/html", "--with-pdf")


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint, and check the formatting."""
    session.install(*CONSTRAINTS, "ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy on src/ alone (settings in pyproject.toml [tool.mypy]); ``tests`` runs it too."""
    session.install(*CONSTRAINTS, "-e", ".[kernels,test,bench,docs]", MYPY)
    session.run("mypy", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """The benchmark suite: CPU experiments always, GPU ones where CUDA is present; writes
    ``docs/_data/bench/<machine>.json`` (a re-run on the same machine replaces its entries).
    Pass ``-- --compare`` to print your machine beside the book's records and the model,
    ``-- --quick`` for scaled-down sizes, ``-- --machine LABEL`` to name a machine apart,
    ``-- --only gpu`` on a GPU machine to leave the CPU's record alone, ``-- --help`` for the
    rest.

    numexpr (a fused CPU path of the fusion experiment) comes with the ``bench`` extra; the
    suite records it as skipped where it is missing.
    """
    session.install(*CONSTRAINTS, "-e", ".[kernels,bench]")
    session.run("python", "-m", "infrabook.bench", *session.posargs)
