"""The one loader for ``conf/``: the article's scenarios and the hardware profiles.

The files live in the repository's ``conf/`` folder and are packaged into the wheel as
``infrabook/conf``; ``INFRABOOK_CONF`` points the loader at another folder. Every file is
checked against its schema (``infrabook.conf_schema``) when it is first read, so a typo fails
with one ``ConfError`` naming the file, the key and what was expected.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from infrabook.conf_schema import ConfError, validate

__all__ = [
    "ConfError",
    "Device",
    "Figure",
    "bench_references",
    "bench_targets",
    "check_all",
    "claims",
    "conf_dir",
    "device",
    "devices",
    "scenarios",
]


def conf_dir() -> Path:
    """The folder the TOML files are read from.

    >>> (conf_dir() / "scenarios.toml").is_file()
    True
    """
    override = os.environ.get("INFRABOOK_CONF")
    if override:
        return Path(override)
    packaged = Path(str(files("infrabook"))) / "conf"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "conf"


@cache
def _load(name: str, folder: Path) -> dict[str, Any]:
    path = folder / name
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfError(
            f"{path}: file not found: expected the conf file {name} there "
            "(is INFRABOOK_CONF set to the right folder?)"
        ) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfError(f"{path}: cannot be read: {err}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfError(f"{path}: expected valid TOML: {err}") from None
    return validate(name, data, path)


def scenarios() -> dict[str, Any]:
    """The article's worked examples from ``conf/scenarios.toml``.

    >>> scenarios()["ffn_chain"]["cols"]
    12288
    """
    data = _load("scenarios.toml", conf_dir())
    peak_device = data["bucketing"]["peak_device"]
    known = _load("hardware.toml", conf_dir())["devices"]
    if peak_device not in known:
        raise ConfError(
            f"{conf_dir() / 'scenarios.toml'}: bucketing.peak_device: expected a "
            f"device of hardware.toml ({', '.join(known)}), got {peak_device!r}"
        )
    return data


def claims() -> list[dict[str, Any]]:
    """The article's numeric claims from ``conf/claims.toml``, in the article's order.

    >>> claims()[0]["id"]
    'fusion.tensor_mib'
    """
    return _load("claims.toml", conf_dir())["claim"]


def bench_targets() -> dict[str, dict[str, Any]]:
    """The benchmark targets of ``conf/bench_targets.toml``, keyed by id.

    >>> t = bench_targets()["cpu_fused_speedup"]
    >>> t["comparison"], t["threshold"]
    ('>=', 1.6)
    """
    return {t["id"]: t for t in _load("bench_targets.toml", conf_dir())["target"]}


def bench_references() -> dict[str, dict[str, Any]]:
    """The record of each kind of machine (``cpu``, ``gpu``) that the chapters' prose quotes,
    from ``conf/bench_targets.toml`` [[reference]], keyed by kind; each says why.

    >>> bench_references()["cpu"]["record"].startswith("cpu-")
    True
    """
    found = _load("bench_targets.toml", conf_dir()).get("reference", [])
    return {r["kind"]: r for r in found}


def live_targets() -> dict[str, int]:
    """The live calculators' targets of ``conf/bench_targets.toml`` [live], in milliseconds.

    >>> live_targets()
    {'first_result_ms': 3000, 'update_ms': 50}
    """
    return dict(_load("bench_targets.toml", conf_dir())["live"])


@dataclass(frozen=True)
class Figure:
    """One hardware figure and where it comes from; ``value`` is None when unknown."""

    value: float | None
    source: str


@dataclass(frozen=True)
class Device:
    """A device profile: dense bf16 and FP32 peaks, DRAM and L2 bandwidth, memory sizes, SMs."""

    key: str
    name: str
    bf16_dense_tflops: Figure
    dram_tb_s: Figure
    l2_mib: Figure
    smem_per_sm_kib: Figure
    sm_count: Figure
    fp32_tflops: Figure
    l2_tb_s: Figure
    regs_per_sm_kib: Figure
    dram_gb: Figure
    #: Regular expressions for the whole name CUDA reports (less "NVIDIA ") of this GPU.
    cuda_names: tuple[str, ...] = ()

    @property
    def l2_bytes(self) -> float | None:
        """L2 size in bytes, or None when unknown."""
        return None if self.l2_mib.value is None else self.l2_mib.value * 2**20


def _figure(entry: dict[str, Any]) -> Figure:
    value = entry.get("value")
    return Figure(None if value is None else float(value), entry["source"])


def devices() -> dict[str, Device]:
    """All device profiles of ``conf/hardware.toml``, keyed by their short name.

    >>> devices()["h200"].dram_tb_s.value
    4.8
    >>> devices()["rtx_pro_6000"].bf16_dense_tflops.value
    503.8
    """
    raw = _load("hardware.toml", conf_dir())["devices"]
    return {
        key: Device(
            key=key,
            name=d["name"],
            cuda_names=tuple(d.get("cuda_names", ())),
            **{
                f: _figure(d[f])
                for f in (
                    "bf16_dense_tflops",
                    "dram_tb_s",
                    "l2_mib",
                    "smem_per_sm_kib",
                    "sm_count",
                    "fp32_tflops",
                    "l2_tb_s",
                    "regs_per_sm_kib",
                    "dram_gb",
                )
            },
        )
        for key, d in raw.items()
    }


def check_all() -> None:
    """Load and check every conf file, raising the first problem as one ``ConfError``.

    The CLI and the docs build call this at startup, so a typo stops them with one line
    instead of a traceback from inside a page.

    >>> check_all()
    """
    scenarios()
    claims()
    bench_targets()
    bench_references()
    devices()


def device(key: str) -> Device:
    """One device profile by key, with a clear error for an unknown one.

    >>> device("a100_80gb").sm_count.value
    108.0
    """
    profiles = devices()
    if key not in profiles:
        raise ValueError(f"unknown device {key!r}: expected one of {', '.join(profiles)}")
    return profiles[key]
