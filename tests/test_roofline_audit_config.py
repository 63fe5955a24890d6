"""Roofline verdicts, the claim audit and the configuration loader."""

from __future__ import annotations

from fractions import Fraction

import pytest

from infrabook import config
from infrabook.audit import VERDICTS, audit, recompute, verdict
from infrabook.config import device, devices
from infrabook.labels import text
from infrabook.roofline import check_bandwidth_claim, implied_tb_s, lower_bound_s
from infrabook.units import MiB


def test_article_timings_need_more_than_any_dram():
    assert round(implied_tb_s(120 * MiB, 14.2e-6), 1) == 8.9
    assert round(implied_tb_s(72 * MiB, 7.7e-6), 1) == 9.8
    for nbytes, seconds in ((120 * MiB, 14.2e-6), (72 * MiB, 7.7e-6)):
        v = check_bandwidth_claim(nbytes, seconds, 72 * MiB)
        assert not v.plausible_from_dram
        assert v.fits_l2_on == ("rtx_pro_6000",)
    assert max(d.dram_tb_s.value for d in devices().values()) < 8.9


@pytest.mark.parametrize(
    ("lang", "words"), [("zh", "高于所列每种设备的显存带宽"), ("en", "more than the device memory")]
)
def test_the_bandwidth_verdict_speaks_the_build_language_and_names_devices(
    monkeypatch, lang, words
):
    monkeypatch.setenv("INFRABOOK_LANG", lang)
    summary = check_bandwidth_claim(120 * MiB, 14.2e-6, 72 * MiB).summary
    assert words in summary
    assert device("rtx_pro_6000").name in summary and device("b200").name in summary
    assert not any(key in summary for key in devices())  # no conf keys shown to readers
    if lang == "zh":
        assert "needs" not in summary and "possible" not in summary
    plausible = check_bandwidth_claim(72 * MiB, 50e-6, 72 * MiB).summary
    assert device("h200").name in plausible and "h200" not in plausible


def test_a_modest_claim_is_plausible():
    v = check_bandwidth_claim(72 * MiB, 50e-6, 72 * MiB)
    assert v.plausible_from_dram and "h200" in v.dram_possible_on


def test_lower_bound_is_the_larger_of_memory_and_compute():
    h200 = device("h200")
    assert lower_bound_s(4.8e12, 0, h200) == pytest.approx(1.0)
    assert lower_bound_s(0, 989e12, h200) == pytest.approx(1.0)
    assert lower_bound_s(4.8e12, 2 * 989e12, h200) == pytest.approx(2.0)


def test_bad_times():
    with pytest.raises(ValueError, match="seconds must be finite and > 0, got 0"):
        implied_tb_s(1, 0)
    with pytest.raises(ValueError, match="nbytes must be finite and >= 0"):
        implied_tb_s(float("nan"), 1)


def test_every_claim_has_a_recomputation_and_only_the_mfu_differs():
    rows = audit()
    assert len(rows) == len(config.claims())
    assert {r.verdict for r in rows} <= set(VERDICTS)
    # The article calls bucketing's executed utilisation (padding counted) "MFU"; useful MFU
    # counts the 5,632 real of 8,192 executed rows: 40 % x 5632 / 8192 = 27.5 % exactly.
    # "MFU doubles" too: executed utilisation doubles, useful MFU rises by the speed-up only,
    # 5632 rows at 100 TFLOP/s against 8192 at 200: (5632 / 100) / (8192 / 200) = 1.375.
    assert [r.id for r in rows if r.verdict == "differs"] == [
        "bucketing.bucketed_mfu",
        "bucketing.mfu_ratio",
    ]
    by_id = {r.id: r for r in rows}
    assert by_id["bucketing.bucketed_mfu"].recomputed == pytest.approx(
        float(Fraction(40) * 5632 / 8192), rel=1e-12
    )
    ratio = by_id["bucketing.mfu_ratio"]
    assert ratio.recomputed == pytest.approx(float(Fraction(5632, 100) / Fraction(8192, 200)))
    assert "×2" in ratio.note and "1.375" in ratio.note
    for key in (
        "fusion.measured_separate_us",
        "fusion.measured_fused_us",
        "fusion.measured_speedup",
    ):
        assert by_id[key].verdict == "implausible"
    # Crossovers are recomputed from the article's own per-run times (the book's one basis),
    # so all three match; the unrounded and at-peak bases are named in the note.
    for key in ("generic_bucketed", "bucketed_specialised", "generic_specialised"):
        row = by_id[f"crossover.{key}"]
        assert row.verdict == "matches" and "503.8" in row.note, row
    assert by_id["bucketing.generic_rate"].verdict == "rounded"


def test_a_two_part_audit_note_is_joined_with_chinese_punctuation_in_chinese(monkeypatch):
    monkeypatch.setenv("INFRABOOK_LANG", "zh")
    # the measured speed-up's note: its own reason, then the bandwidth verdict
    note = {r.id: r.note for r in audit()}["fusion.measured_speedup"]
    assert "；" in note and "; " not in note


def test_the_recomputation_notes_follow_a_language_change_within_one_process(monkeypatch):
    # the article's recomputation is cached; its notes are words, so each language has its own
    for lang in ("zh", "en", "zh", "en"):
        monkeypatch.setenv("INFRABOOK_LANG", lang)
        note = recompute()["bucketing.padding_pct"].note
        fraction = f"{recompute()['bucketing.padding_pct'].value / 100:.2%}"
        assert note == text("audit.note.exactly", lang, value=fraction), (lang, note)
        assert {r.id: r.note for r in audit()}["bucketing.padding_pct"] == note


@pytest.mark.parametrize(
    ("stated", "value", "expected"),
    [
        ("65", 64.68, "matches"),
        ("89", 89.83, "rounded"),
        ("1.67", 5 / 3, "matches"),
        ("7/3", 2.3333, "rounded"),
        ("100", 150, "differs"),
        ("0.6", 0.6, "matches"),
    ],
)
def test_verdict_rule(stated, value, expected):
    assert verdict(stated, value) == expected


def test_every_device_figure_has_a_source():
    for d in devices().values():
        for f in (d.bf16_dense_tflops, d.dram_tb_s, d.l2_mib, d.smem_per_sm_kib, d.sm_count):
            assert f.source.strip()
    assert devices()["rtx_pro_6000"].bf16_dense_tflops.value == 503.8
    assert devices()["b200"].l2_mib.value is None


def test_article_peak_is_the_rtx_pro_6000():
    s = config.scenarios().bucketing
    assert s.peak_tflops == device(s.peak_device).bf16_dense_tflops.value


def test_unknown_device():
    with pytest.raises(ValueError, match="unknown device 'h300'"):
        device("h300")


def test_conf_override(tmp_path, monkeypatch):
    monkeypatch.setenv("INFRABOOK_CONF", str(tmp_path))
    with pytest.raises(config.ConfError, match=r"scenarios\.toml: file not found"):
        config.scenarios()
