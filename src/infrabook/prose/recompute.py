"""Chapter 6 (recomputing the article): running the ``infrabook`` command as a reader
would, comparing its output with the article's, and the values the prose glues.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence

from infrabook.attention_sizes import article_attention, attention_sizes
from infrabook.bucketing import BucketingScenario, article_bucketing, parse_calls, parse_mfus
from infrabook.labels import text
from infrabook.prose import claims_stated
from infrabook.tables import Table
from infrabook.units import mib

# The reader's own inputs the chapter runs the command with, and exercise 2's lower MFU.
OWN_FUSION = ("--rows", "4096", "--cols", "11008", "--dtype", "fp16")
OWN_BUCKETS = ("--rows", "300x20,700x4,1900", "--buckets", "512,1024,2048")
LOW_MFU = "bucketed=0.3"
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def run(*args: str, lang: str | None = None) -> str:
    """The output of the ``infrabook`` command run by this interpreter, in ``lang`` if given
    (the build's language otherwise).

    >>> run("crossover", lang="en").splitlines()[0] != ""
    True
    """
    env = os.environ if lang is None else {**os.environ, "INFRABOOK_LANG": lang}
    return subprocess.run(
        [sys.executable, "-m", "infrabook", *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout


def shell(*args: str) -> str:
    """Run the ``infrabook`` command, print it and its output as a terminal shows them, and
    return the output."""
    out = run(*args)
    print("$ infrabook " + " ".join(args))
    print(out, end="")
    return out


def comparison(
    article: Sequence[str], ours: Sequence[str], ours_zh: Sequence[str]
) -> tuple[Table, dict[str, str]]:
    """The article's output lines against ``calc``'s (``ours`` in this edition's language,
    ``ours_zh`` in Chinese): a table of whether each line's numbers and whole text match,
    and the summary the prose glues.

    >>> t, v = comparison(["a: 1 2"], ["a: 1 2"], ["a: 1 2"])
    >>> t.rows, v["rc_same_numbers"], v["rc_lines"]
    (((1, 'a', 2, '✓', '✓'),), '1', '1')
    """
    rows, same_numbers, differing = [], 0, []
    for i, (theirs, mine, mine_zh) in enumerate(zip(article, ours, ours_zh, strict=True), start=1):
        nums_theirs, nums_mine = _NUMBER.findall(theirs), _NUMBER.findall(mine)
        same_numbers += nums_theirs == nums_mine
        head = mine.split(":")[0]
        if theirs != mine_zh:
            differing.append(head)
        rows.append(
            (
                i,
                head,
                len(nums_theirs),
                "✓" if nums_theirs == nums_mine else "✗",
                "✓" if theirs == mine_zh else "✗",
            )
        )
    columns = tuple(
        text(f"prose.recompute.col.{k}") for k in ("line", "content", "numbers", "match", "whole")
    )
    claim = claims_stated()
    if differing:
        quote = text("prose.recompute.quote_sep").join(differing)
        # one line or several: the sentence says which, not "these lines" for one
        one = len(differing) == 1
        diff = text(f"prose.recompute.{'line_differs' if one else 'lines_differ'}", lines=quote)
    else:
        diff = text("prose.recompute.lines_same")
    return Table("", columns, tuple(rows)), {
        "rc_lines": str(len(article)),
        "rc_sep_us": claim["fusion.measured_separate_us"],
        "rc_fused_us": claim["fusion.measured_fused_us"],
        "rc_same_numbers": str(same_numbers),
        "rc_text_diff": diff,
    }


def own_inputs() -> dict[str, str]:
    """What the command reports for the reader's own inputs (:data:`OWN_FUSION`,
    :data:`OWN_BUCKETS`, then :data:`LOW_MFU`), and the exercises' answers.

    >>> v = own_inputs()
    >>> v["rc_own_rows"], v["rc_own_dtype"], v["rc_low_u"]
    ('4,096', 'FP16', '30%')
    """
    own_fusion = dict(zip(OWN_FUSION[::2], OWN_FUSION[1::2], strict=True))
    base = article_bucketing()
    own = BucketingScenario(
        parse_calls(OWN_BUCKETS[1]),
        tuple(int(b) for b in OWN_BUCKETS[3].split(",")),
        base.peak_tflops,
        base.flop_per_row,
        base.strategies,
    )
    og, ob, _ = own.costs("article")
    low = parse_mfus(LOW_MFU)
    lo_g, lo_b, _ = own.with_mfus(low).costs("article")
    art = article_attention()
    ex_len = art.seq_len // 2
    a_half = attention_sizes(ex_len, art.head_dim, art.dtype, art.score_dtype)
    verdict = "prose.recompute.verdict"
    return {
        "rc_own_rows": f"{int(own_fusion['--rows']):,}",
        "rc_own_cols": f"{int(own_fusion['--cols']):,}",
        "rc_own_dtype": own_fusion["--dtype"].upper(),
        "rc_b_pad": f"{ob.padding_fraction:.1%}",
        "rc_b_limit": f"{ob.strategy.mfu / og.strategy.mfu - 1:.0%}",
        "rc_b_ms": f"{ob.time_ms:.2f}",
        "rc_g_ms": f"{og.time_ms:.2f}",
        "rc_g_u": f"{og.strategy.mfu:.0%}",
        "rc_b_u": f"{ob.strategy.mfu:.0%}",
        "rc_b_useful": f"{100 * ob.useful_mfu(base.implied_peak_tflops()):.3g}%",
        "rc_b_verdict": text(f"{verdict}.{'faster' if ob.time_ms < og.time_ms else 'slower'}"),
        "rc_low_u": f"{low['bucketed']:.0%}",
        "rc_low_limit": f"{low['bucketed'] / og.strategy.mfu - 1:.0%}",
        "rc_low_b_ms": f"{lo_b.time_ms:.2f}",
        "rc_low_g_ms": f"{lo_g.time_ms:.2f}",
        "rc_low_verdict": text(
            f"{verdict}.{'still_faster' if lo_b.time_ms < lo_g.time_ms else 'now_slower'}"
        ),
        "rc_ex1_len": str(ex_len),
        "rc_ex1_sp": f"{mib(a_half.score_bytes):g}",
        "rc_ex1_inter": f"{mib(a_half.intermediate_traffic):g}",
        "rc_ex1_ratio": f"{art.score_bytes / a_half.score_bytes:g}",
        "rc_ex2_even": f"{ob.executed_rows / ob.actual_rows * og.strategy.mfu:.1%}",
    }
