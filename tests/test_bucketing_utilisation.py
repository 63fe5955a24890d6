"""Executed utilisation vs useful MFU, and the ``buckets`` CLI's assumed utilisations."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from infrabook.bucketing import article_bucketing, parse_mfus
from infrabook.cli import main
from infrabook.labels import text


def test_useful_mfu_ratio_is_exactly_the_speed_up():
    # Exact arithmetic: useful MFU = executed utilisation x real rows / executed rows, and the
    # time ratio is (executed rows / utilisation) over (real rows / utilisation).
    sc = article_bucketing()
    generic, bucketed, _ = sc.costs("peak")
    peak = sc.peak_tflops
    useful = Fraction(2, 5) * Fraction(5632, 8192)
    assert bucketed.useful_mfu(peak) == pytest.approx(float(useful), rel=1e-12)
    assert generic.useful_mfu(peak) == pytest.approx(0.2, rel=1e-12)
    speed_up = generic.time_ms / bucketed.time_ms
    assert bucketed.useful_mfu(peak) / generic.useful_mfu(peak) == pytest.approx(
        speed_up, rel=1e-12
    )
    assert bucketed.executed_utilisation(peak) == pytest.approx(0.4, rel=1e-12)


def test_implied_peak_of_the_articles_rates():
    sc = article_bucketing()
    assert sc.implied_peak_tflops("article") == 500.0
    assert sc.implied_peak_tflops("peak") == sc.peak_tflops


def test_with_mfus_drops_the_stated_rates():
    sc = article_bucketing().with_mfus({"bucketed": 0.3})
    rates = [c.rate_tflops for c in sc.costs("article")]
    assert rates == pytest.approx([0.2 * 503.8, 0.3 * 503.8, 0.5 * 503.8], rel=1e-12)


@pytest.mark.parametrize(
    ("raw", "key", "fields"),
    [
        ("bucketed", "error.mfu.format", {"raw": "'bucketed'"}),
        ("generic=0.2, =0.4", "error.mfu.format", {"raw": "'=0.4'"}),
        ("bucketed=abc", "error.mfu.format", {"raw": "'bucketed=abc'"}),
        ("bucketed=0", "error.mfu.range", {"name": "'bucketed'", "value": "0"}),
        ("generic=1.5", "error.mfu.range", {"name": "'generic'", "value": "1.5"}),
    ],
)
def test_parse_mfus_rejects_bad_input(raw, key, fields):
    with pytest.raises(ValueError) as exc:
        parse_mfus(raw)
    assert str(exc.value) == text(key, **fields)


def test_buckets_cli_takes_mfus_and_prints_both_utilisations(capsys):
    assert main(["buckets", "--mfu", "generic=0.25,bucketed=0.3", "--json"]) == 0
    rows = {r["strategy"]["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["generic"]["executed_utilisation"] == pytest.approx(0.25, rel=1e-12)
    assert rows["bucketed"]["useful_mfu"] == pytest.approx(0.3 * 5632 / 8192, rel=1e-12)
    assert main(["buckets"]) == 0
    out = capsys.readouterr().out
    assert "执行利用率" in out and "有用 MFU" in out and "--mfu" in out


def test_buckets_cli_names_an_unknown_strategy(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["buckets", "--mfu", "tuned=0.3"])
    assert exc.value.code == 2
    names = "generic / bucketed / specialised"
    assert text("error.strategy.unknown", name="'tuned'", names=names) in capsys.readouterr().err
