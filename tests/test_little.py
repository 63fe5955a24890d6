"""Little's law: bytes in flight = bandwidth x latency, and what a kernel keeping fewer reaches."""

import math

import pytest

from infrabook.little import InFlight, latency_implied, resident_programs


def test_reached_is_kept_over_latency_below_the_bandwidth():
    k = InFlight(bandwidth=4e12, latency_s=1e-6, bytes_per_program=4096, programs=100)
    assert k.reached == pytest.approx(100 * 4096 / 1e-6)
    assert k.programs_needed == math.ceil(4e6 / 4096)
    # Little's law read backwards gives the latency back
    assert latency_implied(k.kept, k.reached) == pytest.approx(1e-6)


def test_enough_in_flight_reaches_the_bandwidth_and_no_more():
    k = InFlight(bandwidth=4e12, latency_s=1e-6, bytes_per_program=4096, programs=2000)
    assert k.share == 1.0 and k.reached == 4e12


@pytest.mark.parametrize("field", ["bandwidth", "latency_s"])
@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_bad_rates_are_refused_by_name(field, bad):
    args = {"bandwidth": 1e12, "latency_s": 1e-6, "bytes_per_program": 1, "programs": 1}
    with pytest.raises(ValueError, match=f"{field} must be a positive finite number"):
        InFlight(**(args | {field: bad}))


def test_resident_programs_by_thread_limit():
    assert resident_programs("9.0", 4) == 2048 // 128
    assert resident_programs("8.6", 8) == 1536 // 256
