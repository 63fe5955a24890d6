"""The SwiGLU chain's two loop nests in the polyhedral model, computed with isl (``islpy``).

Statement ``S[i, j]`` computes ``T[i, j] = silu(G[i, j])``; statement ``M[i, j]`` computes
``Z[i, j] = T[i, j] * U[i, j]``; both run over ``0 <= i < R, 0 <= j < C``. isl gives the
dependences (which instance of ``M`` reads what an instance of ``S`` wrote), says whether a
schedule (a map from instances to time stamps, ordered lexicographically) respects them, and
writes the loop code a schedule stands for. What it does not know is what a schedule costs:
two legal schedules are equally good to it. islpy is an optional dependency (the ``docs``
extra); importing this module without it raises ImportError naming the extra.
"""

from __future__ import annotations

from dataclasses import dataclass

try:
    import islpy as isl
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "infrabook.polyhedral needs islpy: pip install 'infrabook[docs]' (or islpy)"
    ) from err

#: The iteration domains of the two statements, with the rows R and columns C as parameters.
DOMAIN = "[R, C] -> { S[i, j] : 0 <= i < R and 0 <= j < C; M[i, j] : 0 <= i < R and 0 <= j < C }"
#: What each statement writes and reads (G and U are only read, so they carry no dependence).
WRITES = "[R, C] -> { S[i, j] -> T[i, j]; M[i, j] -> Z[i, j] }"
READS = "[R, C] -> { S[i, j] -> G[i, j]; M[i, j] -> T[i, j]; M[i, j] -> U[i, j] }"
#: The article's two ways of running the chain, and one order that breaks it.
SCHEDULES = {
    # every S first, then every M: two kernels, T written out in full in between
    "unfused": "[R, C] -> { S[i, j] -> [0, i, j]; M[i, j] -> [1, i, j] }",
    # S and M of one element back to back: one loop, T[i, j] used right after it is made
    "fused": "[R, C] -> { S[i, j] -> [i, j, 0]; M[i, j] -> [i, j, 1] }",
    # fused, with the two statements swapped: M would read T[i, j] before S writes it
    "swapped": "[R, C] -> { S[i, j] -> [i, j, 1]; M[i, j] -> [i, j, 0] }",
}
_CONTEXT = "[R, C] -> { : R >= 1 and C >= 1 }"


@dataclass(frozen=True)
class Scheduled:
    """One schedule of the chain: the map, whether it respects every dependence, the
    dependences it breaks (isl's notation; empty braces when none) and the C loop code isl
    generates for it."""

    name: str
    schedule: str
    legal: bool
    violated: str
    code: str


def _ctx() -> isl.Context:
    return isl.DEFAULT_CONTEXT


def _union_map(text: str) -> isl.UnionMap:
    try:
        return isl.UnionMap.read_from_str(_ctx(), text)
    except isl.Error as err:
        raise ValueError(f"not an isl union map: {text!r}") from err


def domain() -> isl.UnionSet:
    """The statements' iteration domains as an isl set.

    >>> print(domain().n_set())
    2
    """
    return isl.UnionSet.read_from_str(_ctx(), DOMAIN)


def dependences() -> isl.UnionMap:
    """Flow (read-after-write) dependences: every write of an array element, paired with
    every read of the same element by a statement instance.

    >>> print(dependences())
    [R, C] -> { S[i, j] -> M[i' = i, j' = j] : 0 <= i < R and 0 <= j < C }
    """
    dom = domain()
    writes = _union_map(WRITES).intersect_domain(dom)
    reads = _union_map(READS).intersect_domain(dom)
    return writes.apply_range(reads.reverse())


def _code(node: isl.AstNode) -> str:
    printer = isl.Printer.to_str(_ctx()).set_output_format(isl.format.C)
    return printer.print_ast_node(node).get_str().rstrip()


def apply(name: str, schedule: str) -> Scheduled:
    """Check ``schedule`` against the dependences and generate its loop code.

    A schedule is legal when every dependence ``a -> b`` has ``schedule(a)`` lexicographically
    before ``schedule(b)``.

    >>> s = apply("fused", SCHEDULES["fused"])
    >>> s.legal, s.violated
    (True, '[R, C] -> {  }')
    >>> print(s.code)
    for (int c0 = 0; c0 < R; c0 += 1)
      for (int c1 = 0; c1 < C; c1 += 1) {
        S(c0, c1);
        M(c0, c1);
      }
    >>> apply("bad", "{ S[i] -> [i] ")
    Traceback (most recent call last):
    ...
    ValueError: not an isl union map: '{ S[i] -> [i] '
    """
    sched = _union_map(schedule)
    missing = domain().subtract(sched.domain())
    if not missing.is_empty():
        raise ValueError(f"schedule {name!r} leaves statement instances unscheduled: {missing}")
    deps = dependences()
    ordered = sched.lex_lt_union_map(sched)
    violated = deps.subtract(ordered)
    build = isl.AstBuild.from_context(isl.Set.read_from_str(_ctx(), _CONTEXT))
    node = build.node_from_schedule_map(sched.intersect_domain(domain()))
    return Scheduled(name, schedule, violated.is_empty(), str(violated), _code(node))


def computed() -> Scheduled:
    """The schedule isl's own scheduler picks when asked to respect the dependences
    (validity) and keep dependent instances close (proximity): it fuses the two nests.

    >>> s = computed()
    >>> s.legal, s.code == apply("fused", SCHEDULES["fused"]).code
    (True, True)
    """
    deps = dependences()
    constraints = isl.ScheduleConstraints.on_domain(domain()).set_validity(deps).set_proximity(deps)
    sched = constraints.compute_schedule().get_map()
    return apply("isl", str(sched))


def article_schedules() -> list[Scheduled]:
    """The unfused, fused and swapped schedules of :data:`SCHEDULES`, applied.

    >>> [(s.name, s.legal) for s in article_schedules()]
    [('unfused', True), ('fused', True), ('swapped', False)]
    """
    return [apply(name, text) for name, text in SCHEDULES.items()]
