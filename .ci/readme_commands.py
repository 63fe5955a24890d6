"""Print the README's "two commands" exactly as written, for .ci/run to execute.

The block is the fenced code block right after the line ``<!-- ci: readme-commands -->``.
CI runs what this prints, so the README and CI cannot drift apart. Standard library only:
it runs before anything is installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

MARKER = "<!-- ci: readme-commands -->"


def readme_commands(text: str) -> list[str]:
    """The lines of the fenced block that follows ``MARKER``, which must appear once."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == MARKER]
    if len(starts) != 1:
        raise ValueError(
            f"expected the line {MARKER!r} once in the README, found it {len(starts)} times"
        )
    fence = starts[0] + 1
    if fence >= len(lines) or not lines[fence].startswith("```"):
        raise ValueError(f"expected a ``` code block on the line after {MARKER!r}")
    try:
        end = lines.index("```", fence + 1)
    except ValueError:
        raise ValueError(f"the code block after {MARKER!r} is never closed") from None
    commands = [line for line in lines[fence + 1 : end] if line.strip()]
    if not commands:
        raise ValueError(f"the code block after {MARKER!r} is empty")
    return commands


def main(argv: list[str]) -> int:
    readme = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "README.md"
    try:
        commands = readme_commands(readme.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        print(f"readme_commands: {readme}: {err}", file=sys.stderr)
        return 2
    print("\n".join(commands))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
