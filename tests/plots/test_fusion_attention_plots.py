"""The fusion and attention figures draw what the calculators compute, and the table helpers
render it faithfully."""

import pytest
from matplotlib.figure import Figure

from infrabook.attention_sizes import attention_sizes, flash_traffic
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import activation_chain
from infrabook.plots.attention import traffic_curves, traffic_plot
from infrabook.plots.fusion import liveness_timeline, traffic_bars
from infrabook.tables import markdown_table
from infrabook.units import MiB

TWO = activation_chain(1024, 12288, "bf16")
THREE = activation_chain(1024, 12288, "bf16", "int8")


def _bar_total(ax, x):
    return sum(p.get_height() for p in ax.patches if abs(p.get_x() + p.get_width() / 2 - x) < 1e-9)


def test_traffic_bars_heights_are_the_accounting():
    fig = traffic_bars(TWO, [("separate", unfused(TWO)), ("fused", fully_fused(TWO))])
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    ticks = ax.get_xticks()
    kernels = [*account(TWO, unfused(TWO)).kernels, *account(TWO, fully_fused(TWO)).kernels]
    assert len(ticks) == len(kernels)
    for x, k in zip(ticks, kernels, strict=True):
        assert _bar_total(ax, x) == pytest.approx(k.bytes_moved / MiB)
    assert ax.get_ylabel().endswith("（MiB）")
    assert fig.legends, "the figure needs a legend"


def test_traffic_bars_hatches_only_the_intermediate():
    fig = traffic_bars(TWO, [("separate", unfused(TWO))])
    striped = [p for p in fig.axes[0].patches if "//" in (p.get_hatch() or "")]
    # T written by silu, read by mul: 24 MiB each.
    assert [p.get_height() for p in striped] == pytest.approx([24, 24])


def test_liveness_timeline_stacks_live_bytes_and_shows_traffic():
    plans = [("separate", unfused(THREE)), ("fused", fully_fused(THREE))]
    fig = liveness_timeline(THREE, plans)
    assert len(fig.axes) == 2
    for ax, (_, plan) in zip(fig.axes, plans, strict=True):
        acc = account(THREE, plan)
        for step, k in enumerate(acc.kernels):
            assert _bar_total(ax, step) == pytest.approx(k.live_bytes / MiB)
        traffic_x = len(acc.kernels) + 0.2
        assert _bar_total(ax, traffic_x) == pytest.approx(acc.traffic / MiB)
        assert f"峰值 {acc.peak_live_bytes // MiB} MiB" in ax.get_title()
    assert fig.axes[0].get_ylim() == fig.axes[1].get_ylim()


@pytest.mark.parametrize("fn", [traffic_bars, liveness_timeline])
def test_figures_reject_no_plans(fn):
    with pytest.raises(ValueError, match="at least one plan, got none"):
        fn(TWO, [])


def test_traffic_curves_match_the_calculators():
    lengths = [512, 8192, 65536]
    c = traffic_curves(lengths, 128, "bf16", "fp32", 128, 64, (128, 128))
    for i, n in enumerate(lengths):
        a = attention_sizes(n, 128, "bf16", "fp32")
        # 128 x 128 tiles: Q, K and V each read L / 128 times (bf16), S and P each written
        # and read once (fp32), O written once
        tiled = 3 * (n // 128) * n * 128 * 2 + 4 * n * n * 4 + n * 128 * 2
        assert c["standard"][i] == tiled / MiB
        assert c["ideal 4 L d"][i] == a.io_traffic / MiB
        assert c["flash, real tiles"][i] == flash_traffic(n, 128, "bf16", 128, 64).total / MiB
    # Standard and tiled FlashAttention both grow as L**2; the ideal grows as L.
    assert c["standard"][2] / c["standard"][1] == pytest.approx(64, rel=0.01)
    assert c["flash, real tiles"][2] / c["flash, real tiles"][1] == pytest.approx(64, rel=0.02)
    assert c["ideal 4 L d"][2] / c["ideal 4 L d"][1] == pytest.approx(8)


def test_traffic_plot_is_log_log_with_labels():
    fig = traffic_plot([512, 1024, 2048, 4096], 128, "bf16", "fp32", 128, 64, (128, 128), mark=1024)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "MiB" in ax.get_ylabel() and "L" in ax.get_xlabel()
    assert len(fig.legends[0].get_texts()) == 5


def test_markdown_table_escapes_and_aligns():
    text = markdown_table(["a", "b"], [["x|y", 1]], align="lr")
    assert text.splitlines() == ["| a | b |", "|:---|---:|", "| x\\|y | 1 |"]
    with pytest.raises(ValueError, match="align must be 1 letters"):
        markdown_table(["a"], [["x"]], align="q")
    with pytest.raises(ValueError, match="at least one column"):
        markdown_table([], [])
