"""Persistent programs = SM count x programs resident per SM, capped at the tile count."""

from __future__ import annotations

import pytest

from infrabook.launches import persistent_schedule


@pytest.mark.parametrize(
    ("sms", "per_sm", "tiles"), [(132, 1, 12288), (132, 4, 12288), (188, 2, 300), (188, 2, 100)]
)
def test_resident_programs_and_the_tiles_each_loops_over(sms: int, per_sm: int, tiles: int) -> None:
    s = persistent_schedule(tiles * 1024, 1024, sms, programs_per_sm=per_sm)
    programs = min(sms * per_sm, tiles)
    assert s.persistent_programs == programs
    low, high = s.tiles_per_program
    # Round-robin: every program gets floor or ceil of the share, and together all tiles.
    counts = [len(range(p, tiles, programs)) for p in range(programs)]
    assert (min(counts), max(counts)) == (low, high)
    assert sum(counts) == tiles


def test_bad_occupancy_is_named() -> None:
    with pytest.raises(ValueError, match="programs_per_sm"):
        persistent_schedule(1024, 64, 132, programs_per_sm=0)
