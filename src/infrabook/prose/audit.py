"""The audit appendix: its tables of the article's claims and the values its prose glues.

Every row comes from :func:`infrabook.audit.audit`; text is formatted the way the page prints
it, in the build's language.
"""

from __future__ import annotations

from collections import Counter

from infrabook import config
from infrabook.audit import ROUNDED_TOLERANCE, VERDICTS, AuditRow, audit
from infrabook.bucketing import article_bucketing, cost_lines
from infrabook.crossover import pairwise
from infrabook.dataflow import account, fully_fused, unfused
from infrabook.ffn_chain import article_chain
from infrabook.labels import text
from infrabook.prose import claims_stated, figure, reference_entry
from infrabook.roofline import check_bandwidth_claim
from infrabook.tables import Markup, Table, markdown_table, markdown_text
from infrabook.units import mib

# The colour of each verdict's badge (sphinx-design's bdg-* roles).
BADGE = {"matches": "success", "rounded": "warning", "differs": "danger", "implausible": "danger"}


def _columns(*keys: str) -> tuple[str, ...]:
    return tuple(text(f"prose.audit.col.{k}") for k in keys)


def verdict_table(rows: list[AuditRow] | None = None) -> tuple[Table, dict[str, str]]:
    """How many claims got each verdict, and the counts glued.

    >>> table, v = verdict_table()
    >>> int(v["au_total"]) == sum(int(v[f"au_n_{k}"]) for k in VERDICTS)
    True
    """
    rows = audit() if rows is None else rows
    counts = Counter(r.verdict for r in rows)
    table = Table(
        "",
        _columns("verdict", "claims"),
        (
            *((text(f"verdict.{v}"), counts.get(v, 0)) for v in VERDICTS),
            (text("prose.audit.total"), len(rows)),
        ),
    )
    return table, {
        "au_tolerance": f"{ROUNDED_TOLERANCE:.0%}",
        "au_total": str(len(rows)),
    } | {f"au_n_{v}": str(counts.get(v, 0)) for v in VERDICTS}


def measured(folder: object = None) -> tuple[str, dict[str, str]]:
    """The reference GPU's name and, by claim id, what its record measured of the claims it
    measures: the activation chain's times at the article's shape (L2 flushed) and the
    launch counts of three FFN runs.

    >>> name, m = measured()
    >>> name, m["fusion.measured_fused_us"], m["launches.eager_kernels"]
    ('NVIDIA H200', '23.4', '21')
    """
    from infrabook.prose.fusion import gpu_chain_times

    entry, _, t = gpu_chain_times(folder)
    configs = reference_entry("gpu_graphs", folder).results.configs
    found = {
        "fusion.measured_separate_us": f"{t['torch_eager']:.1f}",
        "fusion.measured_fused_us": f"{t['triton_fused']:.1f}",
        "fusion.measured_speedup": f"{t['torch_eager'] / t['triton_fused']:.2f}",
    }
    for name, key in (("eager", "eager"), ("graph", "graph"), ("fused", "fused")):
        c = configs[name]
        found[f"launches.{key}_host"] = str(c.host_launches or c.graph_launches)
        found[f"launches.{key}_kernels"] = str(c.kernels)
    both = configs["fused+graph"]
    found["launches.fused_graph_host"] = str(both.graph_launches)
    found["launches.fused_graph_kernels"] = str(both.kernels)
    return entry.provenance.device.name, found


def gpu_values(folder: object = None) -> dict[str, str]:
    """The GPU measurement the appendix's prose quotes beside the article's times and its
    launch counts.

    >>> v = gpu_values()
    >>> v["au_gpu_eager_kernels"], v["au_gpu_model_kernels"], v["au_gpu_over_stated"]
    ('21', '18', '3.0')
    """
    device, on_gpu = measured(folder)
    stated = claims_stated()
    fused = "fusion.measured_fused_us"
    return {
        "au_gpu_dev": device,
        "au_gpu_sep_us": on_gpu["fusion.measured_separate_us"],
        "au_gpu_fus_us": on_gpu["fusion.measured_fused_us"],
        "au_gpu_speedup": on_gpu["fusion.measured_speedup"],
        "au_gpu_over_stated": f"{float(on_gpu[fused]) / float(stated[fused]):.1f}",
        "au_gpu_eager_kernels": on_gpu["launches.eager_kernels"],
        "au_gpu_model_kernels": stated["launches.eager_kernels"],
    }


def claims_markdown(rows: list[AuditRow] | None = None) -> str:
    """Every claim with its recomputation, what the reference GPU measured of it where its
    record does, and a verdict badge, then the numbered notes.

    Markdown rather than a :class:`Table`: the badges are MyST roles the book writes
    (:class:`Markup`), which a table's number formatting would turn into literal text.

    >>> md = claims_markdown()
    >>> md.count("{bdg-") == len(audit())
    True
    """
    rows = audit() if rows is None else rows
    device, on_gpu = measured()
    noted = [r for r in rows if r.note]
    mark = {r.id: i for i, r in enumerate(noted, start=1)}
    note = text("prose.audit.note")
    table = markdown_table(
        (
            *_columns("section", "claim", "article", "recomputed"),
            text("prose.audit.col.measured", device=device),
            *_columns("verdict"),
        ),
        [
            [
                r.section,
                r.text,
                f"{r.stated} {r.unit}".strip(),
                f"{r.recomputed_text} {r.recomputed_unit}".strip(),
                f"{on_gpu[r.id]} {r.unit}".strip() if r.id in on_gpu else "—",
                Markup(
                    f"{{bdg-{BADGE[r.verdict]}}}`{text(f'verdict.{r.verdict}')}`"
                    + (f"\u00a0{note}\u00a0{mark[r.id]}" if r.id in mark else "")
                ),
            ]
            for r in rows
        ],
        align="llrrrl",
    )
    notes = "\n".join(f"{i}. {markdown_text(r.note)}" for i, r in enumerate(noted, start=1))
    return f"{table}\n\n{notes}"


def bandwidth() -> tuple[Table, dict[str, str]]:
    """The article's measured times of the activation chain against each device's memory
    bandwidth: a table of lower bounds and L2 fit, and the values the prose glues.

    >>> table, v = bandwidth()
    >>> float(v["au_fus_tbs"]) > float(v["au_fastest_tbs"])
    True
    """
    stated = claims_stated()
    g = article_chain()
    cases = {
        "separate": (account(g, unfused(g)), stated["fusion.measured_separate_us"]),
        "fused": (account(g, fully_fused(g)), stated["fusion.measured_fused_us"]),
    }
    verdicts = {
        name: check_bandwidth_claim(acc.traffic, float(us) * 1e-6, acc.footprint_bytes)
        for name, (acc, us) in cases.items()
    }
    footprint = cases["separate"][0].footprint_bytes
    rows = []
    for dev in config.devices().values():
        bw, l2 = figure(dev, "dram_tb_s"), dev.l2_bytes
        fits = "word.unknown" if l2 is None else ("word.yes" if l2 >= footprint else "word.no")
        rows.append(
            (
                dev.name,
                f"{bw:g}",
                text("word.unknown") if l2 is None else f"{dev.l2_mib.value:g}",
                *(f"{acc.traffic / (bw * 1e12) * 1e6:.1f}" for acc, _ in cases.values()),
                text(fits),
            )
        )
    columns = (*_columns("device", "dram"), "L2 MiB", *_columns("sep_bound", "fused_bound", "fits"))
    fastest = verdicts["fused"].fastest_dram
    l2_devs = [config.device(k) for k in verdicts["separate"].fits_l2_on]
    by_id = {r.id: r for r in audit()}
    sep = text("prose.list_sep")
    return Table("", columns, tuple(rows)), {
        "au_sep_mib": f"{mib(cases['separate'][0].traffic):g}",
        "au_fus_mib": f"{mib(cases['fused'][0].traffic):g}",
        "au_sep_us": stated["fusion.measured_separate_us"],
        "au_fus_us": stated["fusion.measured_fused_us"],
        "au_sep_tbs": f"{verdicts['separate'].implied_tb_s:.1f}",
        "au_fus_tbs": f"{verdicts['fused'].implied_tb_s:.1f}",
        "au_fastest": fastest.name,
        "au_fastest_tbs": f"{fastest.dram_tb_s.value:g}",
        "au_sep_ws": f"{mib(cases['separate'][0].footprint_bytes):g}",
        "au_fus_ws": f"{mib(cases['fused'][0].footprint_bytes):g}",
        "au_l2_dev": sep.join(d.name for d in l2_devs),
        "au_l2_mib": sep.join(f"{d.l2_mib.value:g}" for d in l2_devs),
        "au_speedup": f"{float(by_id['fusion.measured_speedup'].recomputed):.2f}",
        "au_model": f"{float(by_id['fusion.model_speedup'].recomputed):.2f}",
        "au_peak_dev": config.device(config.scenarios().bucketing.peak_device).name,
    }


def bucketing() -> dict[str, str]:
    """The bucketing claims: rates, times, useful MFU and the bucketed/specialised crossing
    on each basis.

    >>> v = bucketing()
    >>> len(v["au_ms_stated"].split(" / ")), v["au_bs_stated"]
    (3, '89')
    """
    by_id = {r.id: r for r in audit()}
    rate_rows = [by_id[f"bucketing.{n}_rate"] for n in ("generic", "bucketed", "specialised")]
    sc = article_bucketing()
    generic, bucketed, _ = sc.costs("article")
    implied = sc.implied_peak_tflops("article")
    mfu_row = by_id["bucketing.bucketed_mfu"]
    row = by_id["crossover.bucketed_specialised"]
    unrounded = pairwise(cost_lines(sc.costs("article"), shown=False))
    at_peak = pairwise(cost_lines(sc.costs("peak"), shown=False))
    rate_diff = max(abs(r.recomputed / float(r.stated) - 1) for r in rate_rows)
    return {
        "au_rate_diff": f"{rate_diff:.2%}",
        "au_rates_stated": " / ".join(r.stated for r in rate_rows),
        "au_rates_peak": " / ".join(f"{r.recomputed:.1f}" for r in rate_rows),
        "au_peak": f"{sc.peak_tflops:g}",
        "au_implied_peak": f"{implied:g}",
        "au_ms_stated": " / ".join(f"{c.time_ms:.1f}" for c in sc.costs("article")),
        "au_ms_peak": " / ".join(f"{c.time_ms:.2f}" for c in sc.costs("peak")),
        "au_useful_rate": f"{bucketed.useful_rate_tflops:.1f}",
        "au_mfu_stated": mfu_row.stated,
        "au_mfu_useful": f"{float(mfu_row.recomputed):.1f}",
        "au_mfu_useful_peak": f"{bucketed.useful_mfu(sc.peak_tflops):.1%}",
        "au_mfu_g": f"{generic.useful_mfu(implied):.0%}",
        "au_mfu_ratio": f"{bucketed.useful_mfu(implied) / generic.useful_mfu(implied):.3f}",
        "au_bs_stated": row.stated,
        "au_bs_recomputed": f"{float(row.recomputed):.1f}",
        "au_bs_unrounded": f"{unrounded[2].runs:.1f}",
        "au_bs_peak": f"{at_peak[2].runs:.1f}",
    }


def errata(rows: list[AuditRow] | None = None) -> tuple[Table, dict[str, str]]:
    """The claims whose recomputation does not match the article (the changelog's errata),
    and how many there are of how many claims.

    >>> table, v = errata()
    >>> len(table.rows) == int(v["cl_errata"]) < int(v["cl_claims"])
    True
    """
    rows = audit() if rows is None else rows
    wrong = [r for r in rows if r.verdict != "matches"]
    table = Table(
        "",
        _columns("section", "article_claim", "article", "recomputed", "verdict"),
        tuple(
            (
                r.section,
                r.text,
                f"{r.stated} {r.unit}".strip(),
                f"{r.recomputed_text} {r.recomputed_unit}".strip(),
                r.verdict_text,
            )
            for r in wrong
        ),
    )
    return table, {"cl_errata": str(len(wrong)), "cl_claims": str(len(rows))}
