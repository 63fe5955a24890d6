"""The primer's tile figure and the two guide figures: their numbers against independent
arithmetic and the hardware file, their words in each edition's language."""

from __future__ import annotations

import math
import re
import tomllib

import pytest

from infrabook.config import conf_dir, device
from infrabook.crossover import Line, regimes
from infrabook.gpu_model import WARP, TileMap
from infrabook.plots.gpu_model import tile_on_gpu
from infrabook.plots.guides import decision_guide, flash_tiling

CJK = re.compile(r"[\u3400-\u9fff]")


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].texts] + [fig.axes[0].get_title()]


@pytest.mark.parametrize(
    "elements, block, warps, sms", [(1024 * 12288, 1024, 4, 188), (1000, 128, 1, 3), (1, 64, 2, 1)]
)
def test_tile_map_against_plain_arithmetic(elements, block, warps, sms):
    m = TileMap(elements, block, warps, sms)
    assert m.programs == math.ceil(elements / block)
    assert m.threads_per_program * m.elements_per_thread == block
    assert m.threads_per_program == 32 * warps == WARP * warps
    assert m.full_waves == m.programs // sms


@pytest.mark.parametrize("block", [96, 48, 0])
def test_tile_map_refuses_blocks_threads_cannot_share(block):
    with pytest.raises(ValueError, match="block"):
        TileMap(100, block, 1, 1)


def test_tile_figure_shows_the_hardware_file_figures():
    raw = tomllib.loads((conf_dir() / "hardware.toml").read_text())["devices"]["h100_sxm"]
    texts = " ".join(_texts(tile_on_gpu(TileMap(2**20, 1024, 4, 132), device("h100_sxm"))))
    for key in ("smem_per_sm_kib", "l2_mib", "dram_tb_s", "dram_gb"):
        assert f"{raw[key]['value']:g}" in texts, key
    assert "1,024" in texts and "132" in texts


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_figures_speak_the_editions_language(lang, monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", lang)
    env = regimes([Line("generic", 100, 17.0), Line("bucketed", 400, 12.4),
                   Line("specialised", 900, 6.8)])  # fmt: skip
    figures = [
        tile_on_gpu(TileMap(2**20, 1024, 4, 132), device("h100_sxm")),
        flash_tiling(8192, 128, 64),
        decision_guide(env, {"generic": "g", "bucketed": "b", "specialised": "s"}),
    ]
    for fig in figures:
        has_cjk = any(CJK.search(t) for t in _texts(fig))
        assert has_cjk == (lang == "zh")


def test_flash_tiling_counts_query_blocks_as_the_traffic_model_does():
    texts = " ".join(_texts(flash_tiling(1000, 128, 64)))
    assert str(math.ceil(1000 / 128)) in texts and str(math.ceil(1000 / 64)) in texts


def test_decision_guide_needs_regimes():
    with pytest.raises(ValueError, match="envelope"):
        decision_guide((), {})
