"""Live calculators on the pages: ``{live-calc} NAME`` renders one of :mod:`infrabook.live`.

At build time the directive writes the calculator's form with the article's case filled in,
and the tables :func:`infrabook.live.run` computes for it: that is the static page, complete
without JavaScript. The page's script (``_static/live/live.js``) loads Pyodide from this site
when the reader shows an interest in a calculator (see the script), unpacks the package's own
wheel, which this extension builds from the source tree and ships beside the script, with
the conf files the build read (the TOML files themselves, checked in the browser as
anywhere else, by :mod:`infrabook.conf_plain`; never a pickle, which would run code), and
calls the same :func:`~infrabook.live.run` on every change. Nothing is fetched from
anywhere but the site itself.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from infrabook import config, live
from infrabook.calc_fields import Field
from infrabook.calculators import calculators
from infrabook.labels import text
from infrabook.safe_files import read_bounded

ROOT = Path(__file__).resolve().parents[2]
WHEEL_NAME = "infrabook-py3-none-any.whl"
#: The conf files the build read, laid out for live.js to unpack over the wheel's copy.
CONF_NAME = "infrabook-conf.zip"
#: What live.js fetches on first use besides the wheel: Pyodide's runtime, vendored here, with
#: its standard library partly compiled (``precompile_stdlib.mjs`` beside this file).
PYODIDE = ROOT / "docs" / "_static" / "pyodide"
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib_precompiled.zip",
    "pyodide-lock.json",
)
#: Pyodide's own standard library, vendored as published: the source of the precompiled one,
#: which the site serves instead, so it is not published.
STDLIB_SOURCE = "python_stdlib.zip"


class live_calc(nodes.General, nodes.Element):
    """Marks a page that holds a calculator, so only such pages load the script."""


def _field_html(calc: str, f: Field) -> str:
    ident = f"live-{calc}-{f.name}"
    label = html.escape(f.label)
    value = html.escape(f.default)
    if f.kind == "choice":
        options = "".join(
            f'<option value="{html.escape(c)}"{" selected" if c == f.default else ""}>'
            f"{html.escape(c)}</option>"
            for c in f.choices
        )
        control = f'<select id="{ident}" name="{f.name}">{options}</select>'
    elif f.kind == "bool":
        checked = " checked" if f.default == "true" else ""
        control = f'<input id="{ident}" name="{f.name}" type="checkbox"{checked}>'
    else:
        mode = "numeric" if f.kind in ("int", "ints") else "decimal"
        mode = "text" if f.kind in ("calls", "floats") else mode
        control = (
            f'<input id="{ident}" name="{f.name}" type="text" inputmode="{mode}" '
            f'value="{value}" autocomplete="off" spellcheck="false" '
            f'aria-describedby="{ident}-error">'
        )
    # a list of values takes the form's whole width, so its default is seen whole
    wide = " live-list" if f.kind in ("calls", "floats", "ints") else ""
    return (
        f'<div class="live-field{wide}"><label for="{ident}">{label}</label>{control}'
        f'<span class="live-error" id="{ident}-error" data-for="{f.name}"></span></div>'
    )


def download_bytes(wheel: Path) -> int:
    """What a reader's browser downloads on first use (Pyodide, the package's wheel and the
    conf), in bytes, from the files' sizes: the total of the progress figure."""
    files = [PYODIDE / name for name in PYODIDE_FILES] + [wheel, wheel.with_name(CONF_NAME)]
    return sum(f.stat().st_size for f in files)


def calculator_html(name: str, size: int) -> str:
    """The calculator's static HTML: its form with the defaults, and their tables; ``size``
    is :func:`download_bytes`, said in MB (10^6 bytes, one decimal) on the button and in the
    loading message, and the total of the progress figure."""
    mb = f"{size / 1e6:.1f}"
    calc = calculators()[name]
    result = live.run(name, {})
    if not result["ok"]:
        raise ValueError(f"live calculator {name!r} fails on its defaults: {result['error']}")
    messages = {
        f"data-msg-{key}": text(f"live.ui.{key}")
        for key in ("ready", "file", "unsupported", "failed", "stale")
    }
    messages["data-msg-loading"] = text("live.ui.loading", mb=mb)
    messages["data-msg-static"] = text("live.ui.static", mb=mb)
    messages["data-msg-enable-loaded"] = text("live.ui.enable_loaded")
    # live.js fills in the bytes received as it counts them
    messages["data-msg-progress"] = text("live.ui.progress", done="{done}", total="{total}")
    attrs = " ".join(f'{k}="{html.escape(v)}"' for k, v in messages.items())
    fields = "".join(_field_html(name, f) for f in calc.fields)
    return (
        f'<section class="live-calc" data-calc="{name}" data-state="static" {attrs}>'
        f'<p class="live-title">{html.escape(calc.title)}</p>'
        f'<form class="live-form" novalidate>{fields}</form>'
        f'<div class="live-bar"><button type="button" class="live-enable">'
        f"{html.escape(text('live.ui.enable', mb=mb))}</button>"
        f'<p class="live-status" role="status">{html.escape(text("live.ui.static", mb=mb))}</p>'
        f'<div class="live-progress-bar" hidden><progress class="live-progress" max="{size}" '
        f'value="0" aria-label="{html.escape(text("live.ui.progress_label"))}"></progress>'
        f'<span class="live-progress-text" aria-hidden="true"></span></div></div>'
        f'<p class="live-form-error" role="alert"></p>'
        f'<div class="live-output" aria-live="polite">{result["html"]}</div>'
        f"</section>"
    )


class LiveCalcDirective(SphinxDirective):
    """``{live-calc} NAME``: one of :func:`infrabook.calculators.calculators`, by name."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        if name not in calculators():
            raise self.error(
                f"no live calculator {name!r}; expected one of {', '.join(calculators())}"
            )
        marker = live_calc()
        wheel = _wheel(self.env.doctreedir)
        marker += nodes.raw("", calculator_html(name, download_bytes(wheel)), format="html")
        return [marker]


def _visit(self: object, node: nodes.Element) -> None:
    pass


def _depart(self: object, node: nodes.Element) -> None:
    pass


def _add_script(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: nodes.document | None
) -> None:
    if doctree is not None and any(doctree.findall(live_calc)):
        app.add_js_file("live/live-check.js")
        app.add_js_file("live/live.js", type="module")
        app.add_css_file("live/live.css")


_BUILT: set[Path] = set()


def _wheel(doctreedir: str | Path) -> Path:
    """The package's wheel, built from this tree once per build (beside the doctrees), and
    :data:`CONF_NAME` beside it, so that their sizes are known when the pages are written."""
    target = Path(doctreedir) / "live" / WHEEL_NAME
    if target not in _BUILT:
        _make_wheel(target)
        _make_conf(target.with_name(CONF_NAME))
        _BUILT.add(target)
    return target


def _make_conf(target: Path) -> None:
    """The conf files the pages were computed from (checked first), as the browser reads them."""
    config.check_all()
    folder = config.conf_dir()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for name in config.FILES:
            out.writestr(f"infrabook/conf/{name}", read_bounded(folder / name, config.MAX_BYTES))


def _make_wheel(target: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "--quiet",
                "--disable-pip-version-check",
                "-w",
                tmp,
                str(ROOT),
            ],
            check=True,
        )
        (wheel,) = Path(tmp).glob("infrabook-*.whl")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(wheel, target)


def _ship_wheel(app: Sphinx, exception: Exception | None) -> None:
    """The wheel and conf files the pages were written with, shipped beside the script."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "live" / WHEEL_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    wheel = _wheel(app.doctreedir)
    shutil.copyfile(wheel, target)
    shutil.copyfile(wheel.with_name(CONF_NAME), target.with_name(CONF_NAME))
    (Path(app.outdir) / "_static" / "pyodide" / STDLIB_SOURCE).unlink(missing_ok=True)


def setup(app: Sphinx) -> dict:
    app.add_node(live_calc, html=(_visit, _depart))
    app.add_directive("live-calc", LiveCalcDirective)
    app.connect("html-page-context", _add_script)
    app.connect("build-finished", _ship_wheel)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
