"""Persistent programs = SM count x programs resident per SM, capped at the tile count; each
loops over the tiles round-robin, as the kernel's ``range(pid, tiles, programs)`` does."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infrabook.launches import persistent_schedule


# Expected values worked by hand: 12,288 tiles / 132 = 93.09, / 528 = 23.27; 376 resident
# programs for 300 or 100 tiles leave one tile each (the content review rechecked the first two).
@pytest.mark.parametrize(
    ("sms", "per_sm", "tiles", "programs", "share"),
    [
        (132, 1, 12288, 132, (93, 94)),
        (132, 4, 12288, 528, (23, 24)),
        (188, 2, 300, 300, (1, 1)),
        (188, 2, 100, 100, (1, 1)),
        (108, 1, 12288, 108, (113, 114)),
    ],
)
def test_worked_cases(sms, per_sm, tiles, programs, share) -> None:
    s = persistent_schedule(tiles * 1024, 1024, sms, programs_per_sm=per_sm)
    assert (s.tiles, s.per_tile_programs, s.persistent_programs) == (tiles, tiles, programs)
    assert s.tiles_per_program == share


@given(
    elements=st.integers(1, 10**6),
    block=st.integers(1, 4096),
    sms=st.integers(1, 200),
    per_sm=st.integers(1, 16),
)
def test_schedule_matches_a_round_robin_walk(elements, block, sms, per_sm) -> None:
    """Walk the tiles as the kernel does (tile t goes to program t mod P) and count: the
    schedule's tile count, its fewest and most tiles per program, and the cap all agree."""
    s = persistent_schedule(elements, block, sms, programs_per_sm=per_sm)
    tiles = len(range(0, elements, block))  # tile starts, as the kernel offsets them
    assert s.tiles == tiles
    assert s.persistent_programs <= min(sms * per_sm, tiles)
    # no program idles while another could run: the cap is reached unless tiles run out
    assert s.persistent_programs in (sms * per_sm, tiles)
    walked = Counter(t % s.persistent_programs for t in range(tiles))
    assert len(walked) == s.persistent_programs  # every launched program gets a tile
    assert (min(walked.values()), max(walked.values())) == s.tiles_per_program


def test_bad_occupancy_is_named() -> None:
    with pytest.raises(ValueError, match="programs_per_sm"):
        persistent_schedule(1024, 64, 132, programs_per_sm=0)
