"""The benchmark suite: measurements that check the article's models on real hardware.

``nox -s bench`` (``python -m infrabook.bench``, :mod:`~infrabook.bench.run`) runs the
experiments that :mod:`~infrabook.bench.experiments.suite` lists and writes one record per
machine to ``docs/_data/bench/<machine>.json``. Three layers, each importing only those below
it (pyproject.toml's import-linter contracts): :mod:`~infrabook.bench.experiments` (one module
per operation), :mod:`~infrabook.bench.measure` (host, CUDA, timers) and
:mod:`~infrabook.bench.records` (the records' types, validation, store, compare and reports),
which imports no torch.
"""
