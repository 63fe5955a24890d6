"""Fail unless every notebook page of the site was executed without an error output.

Usage: python -m docs.checks.executed DOCS_DIR BUILD_DIR

myst-nb writes each executed page as a notebook under BUILD_DIR/jupyter_execute; a page
whose code cells lack an execution count was not run, and an output of type "error" (or a
stream on stderr that holds a traceback) means a cell failed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def problems(docs: Path, build: Path) -> list[str]:
    found = []
    pages = [
        p
        for p in sorted(docs.rglob("*.md"))
        if "_build" not in p.parts and "{code-cell}" in p.read_text(encoding="utf-8")
    ]
    if not pages:
        return ["no executable pages found"]
    for page in pages:
        rel = page.relative_to(docs).with_suffix(".ipynb")
        nb_path = build / "jupyter_execute" / rel
        if not nb_path.is_file():
            found.append(f"{page}: no executed notebook at {nb_path}")
            continue
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "code" or not "".join(cell["source"]).strip():
                continue  # an empty cell has nothing to run
            if cell.get("execution_count") is None:
                found.append(f"{page}: code cell {i} was not executed")
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    found.append(f"{page}: code cell {i} raised {out.get('ename')}")
                text = "".join(out.get("text", ""))
                if out.get("name") == "stderr" and "Traceback" in text:
                    found.append(f"{page}: code cell {i} printed a traceback")
    return found


def main() -> int:
    docs, build = Path(sys.argv[1]), Path(sys.argv[2])
    found = problems(docs, build)
    for line in found:
        print(line, file=sys.stderr)
    if not found:
        print("every page executed without errors")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
