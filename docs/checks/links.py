"""Check that every internal link, anchor and image of the built site resolves.

Usage: python -m docs.checks.links BUILD_HTML_DIR [--with-pdf] [--edition zh|en]

The book's PDFs (``infrabook-zh.pdf``, ``infrabook-en.pdf``) are built after the site, by
``nox -s pdf``: links to them are checked only with ``--with-pdf``, which that session passes.

External links (with a scheme such as https:) are listed, not fetched: the build machines
have no network, and a published page's reachability is not this build's business.

``--edition`` checks one edition's pages (``nox -s docs -- zh`` builds only that one): the
Chinese at the root, the English under ``en/``. Their links into the other edition, which
that build did not write, are not followed.
"""

from __future__ import annotations

import argparse
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

SKIP_DIRS = {"_sources", "_static", "_images", "_downloads"}
PDFS = {"infrabook-zh.pdf", "infrabook-en.pdf"}
EDITIONS = ("zh", "en")


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.refs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v for k, v in attrs if v is not None}
        for key in ("id", "name"):
            if key in a:
                self.ids.add(a[key])
        if tag == "a" and "href" in a:
            self.refs.append(("href", a["href"]))
        if tag in ("img", "script") and "src" in a:
            self.refs.append(("src", a["src"]))
        if tag == "link" and "href" in a and a.get("rel") in ("stylesheet", "icon", "preload"):
            self.refs.append(("href", a["href"]))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def check(
    root: Path, with_pdf: bool = True, edition: str | None = None
) -> tuple[list[str], set[str]]:
    if edition not in (None, *EDITIONS):
        raise ValueError(f"edition {edition!r} unknown: expected one of {', '.join(EDITIONS)}")
    english = (root / "en").resolve()

    def other_edition(path: Path) -> bool:
        return edition is not None and (path.is_relative_to(english) != (edition == "en"))

    pages = [p for p in root.rglob("*.html") if not SKIP_DIRS & set(p.relative_to(root).parts)]
    pages = [p for p in pages if not other_edition(p.resolve())]
    parsed = {p.resolve(): _parse(p) for p in pages}
    broken: list[str] = []
    external: set[str] = set()
    for path, page in parsed.items():
        for _, ref in page.refs:
            parts = urlsplit(ref)
            if parts.scheme or ref.startswith("//"):
                if parts.scheme in ("http", "https"):
                    external.add(ref)
                continue
            if path.name == "404.html" and ref.startswith("/"):
                continue  # the 404 page links absolutely, to wherever the site is served
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if (target.name in PDFS and not with_pdf) or other_edition(target):
                continue
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(root.resolve())}: {ref} (no such file)")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = parsed.get(target) or _parse(target)
                if unquote(parts.fragment) not in ids.ids:
                    broken.append(f"{path.relative_to(root.resolve())}: {ref} (no such anchor)")
    return broken, external


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m docs.checks.links")
    parser.add_argument("root", type=Path, help="the built site (docs/_build/html)")
    parser.add_argument("--with-pdf", action="store_true", help="check links to the PDFs")
    parser.add_argument("--edition", choices=EDITIONS, help="check one edition's pages")
    args = parser.parse_args()
    broken, external = check(args.root, with_pdf=args.with_pdf, edition=args.edition)
    for line in broken:
        print(f"broken: {line}", file=sys.stderr)
    print(f"{len(external)} external links (listed, not fetched):")
    for ref in sorted(external):
        print(f"  {ref}")
    print(
        "internal links, anchors and images: "
        + ("all resolve" if not broken else f"{len(broken)} broken")
    )
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
