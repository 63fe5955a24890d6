"""The roofline calculators against exact arithmetic on the raw TOML figures, and the two
figures against the calculators they draw."""

import tomllib
from fractions import Fraction

import numpy as np
import pytest

from infrabook.config import conf_dir, device, devices
from infrabook.labels import text
from infrabook.plots.hierarchy import hierarchy_diagram, levels
from infrabook.plots.roofline import roof_curve, roofline_plot
from infrabook.roofline import (
    Workload,
    article_workloads,
    attention_workloads,
    gemm_workload,
    ridge_point,
    silu_chain_workloads,
)

RAW = tomllib.loads((conf_dir() / "hardware.toml").read_text())["devices"]


@pytest.mark.parametrize("key", sorted(RAW))
@pytest.mark.parametrize(
    ("unit", "field"), [("fp32", "fp32_tflops"), ("bf16", "bf16_dense_tflops")]
)
def test_ridge_point_is_peak_over_bandwidth(key, unit, field):
    raw = RAW[key]
    exact = Fraction(str(raw[field]["value"])) / Fraction(str(raw["dram_tb_s"]["value"]))
    assert ridge_point(device(key), unit) == pytest.approx(float(exact), rel=1e-15)


def test_every_new_figure_has_a_source():
    for d in RAW.values():
        for field in ("fp32_tflops", "regs_per_sm_kib", "l2_tb_s", "dram_gb"):
            assert d[field]["source"].strip()


def test_fp32_ridge_is_far_below_the_tensor_ridge():
    # pointwise math runs on the FP32 units: their ridge is the one the SiLU chain must beat
    for d in devices().values():
        assert ridge_point(d, "fp32") < ridge_point(d, "bf16") / 2


def test_silu_chain_intensity_counts_bytes_exactly():
    rows, cols = 1024, 12288
    sep, fused = silu_chain_workloads(rows, cols, "bf16")
    n = rows * cols
    assert sep.flop == fused.flop == 5 * n
    assert sep.nbytes == 5 * n * 2 and fused.nbytes == 3 * n * 2  # G,U,T,T,U,Z vs G,U,Z
    assert fused.intensity == pytest.approx(float(Fraction(5, 6)), rel=1e-15)
    for d in devices().values():
        assert fused.bound(d) == "memory"


@pytest.mark.parametrize("rows", [1, 256, 512, 2048, 3000])
def test_gemm_intensity_matches_numpy_float64(rows):
    k, n = 4096, 12288
    w = gemm_workload(rows, k, n, "bf16")
    flop = np.float64(2) * rows * k * n
    nbytes = np.float64(2) * (rows * k + k * n + rows * n)
    assert w.intensity == pytest.approx(flop / nbytes, rel=1e-14)


def test_bucketing_rows_cross_the_article_devices_ridge():
    rtx = device("rtx_pro_6000")
    assert gemm_workload(256, 4096, 12288, "bf16").bound(rtx) == "memory"
    assert gemm_workload(512, 4096, 12288, "bf16").bound(rtx) == "compute"


def test_attention_intensity_uses_the_traffic_models():
    std, fa = attention_workloads(8192, 128, "bf16", "fp32", 128)
    flop = 4 * 8192 * 8192 * 128
    assert std.nbytes == (8 + 1024) * 2**20 and fa.nbytes == 260 * 2**20
    assert std.intensity == pytest.approx(float(Fraction(flop, std.nbytes)), rel=1e-15)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="unit must be one of"):
        Workload("x", 1.0, 1.0, "fp16")
    with pytest.raises(ValueError, match="nbytes"):
        Workload("x", 1.0, 0.0, "fp32")
    with pytest.raises(ValueError, match="rows"):
        gemm_workload(0, 4096, 12288, "bf16")
    with pytest.raises(ValueError, match="unit must be one of"):
        ridge_point(device("h200"), "int8")


def test_roofline_plot_places_each_workload_on_the_roof():
    rtx, h100 = device("rtx_pro_6000"), device("h100_sxm")
    work = article_workloads()
    fig = roofline_plot([rtx, h100], work)
    ax = fig.axes[0]
    points = [ln for ln in ax.lines if ln.get_linestyle() == "None"]
    assert len(points) == len(work)
    for ln, w in zip(points, work, strict=True):
        x, y = ln.get_xdata()[0], ln.get_ydata()[0]
        assert x == pytest.approx(w.intensity)
        assert y == pytest.approx(float(roof_curve(rtx, w.unit, np.array([x]))[0]))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert text("roofline.roof_fp32", device=h100.name) in labels
    with pytest.raises(ValueError, match="at least one device"):
        roofline_plot([], work)


def test_hierarchy_says_unpublished_rather_than_inventing():
    for d in devices().values():
        rows = levels(d)
        assert rows[3].bandwidth == text("hierarchy.bw", value=f"{d.dram_tb_s.value:g}")
        assert rows[2].bandwidth == text("hierarchy.bw_onchip")  # no L2 bandwidth in conf
    b200 = levels(device("b200"))
    assert b200[2].size == text("hierarchy.size_unknown")


def test_hierarchy_diagram_shows_every_level():
    fig = hierarchy_diagram(device("h200"))
    shown = {t.get_text() for t in fig.axes[0].texts}
    for lv in levels(device("h200")):
        assert {lv.name, lv.size, lv.bandwidth} <= shown
