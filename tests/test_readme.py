"""The README a newcomer reads: nothing it names lies outside the repository, its first screen
says what the book is, shows it and gives the two commands, and its screenshots are small."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# what a browser shows of the README before scrolling, at about 50 lines a screen
FIRST_SCREEN = "\n".join(README.splitlines()[:40])
MAX_IMAGE_BYTES = 300 * 1024


def _targets(text: str) -> list[str]:
    """The local targets of the Markdown links and HTML images in ``text``."""
    links = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'<img src="([^"]+)"', text)
    return [t for t in links if not re.match(r"[a-z]+:", t)]


def test_every_local_link_and_image_is_in_the_repository():
    targets = _targets(README)
    assert targets
    for target in targets:
        path = (ROOT / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), target


def test_no_path_outside_the_repository():
    # a path that climbs out of the clone, or an absolute one on some machine
    assert not re.findall(r"\.\./|(?<![\w/.:])/(?:work|home|tmp|Users)/", README)


def test_first_screen_says_what_shows_and_builds():
    assert FIRST_SCREEN.startswith("# infrabook")
    assert "executable book" in FIRST_SCREEN and "S23-J17" in FIRST_SCREEN
    images = re.findall(r'<img src="([^"]+)"', FIRST_SCREEN)
    assert len(images) == 2  # desktop and phone width
    assert "<!-- ci: readme-commands -->\n```bash\n" in FIRST_SCREEN
    assert FIRST_SCREEN.count("\n```", FIRST_SCREEN.index("readme-commands")) >= 2  # closed


def test_screenshots_are_small_pngs():
    for target in re.findall(r'<img src="([^"]+)"', README):
        data = (ROOT / target).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", target
        assert len(data) < MAX_IMAGE_BYTES, (target, len(data))


def test_maintainers_matter_is_in_contributing():
    assert "](CONTRIBUTING.md)" in README
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for heading in ("## How the execution cache stays honest", "## Site size", "## Other nox"):
        assert heading in contributing and heading not in README
