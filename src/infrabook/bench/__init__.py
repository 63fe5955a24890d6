"""The benchmark suite: measurements that check the article's models on real hardware.

``nox -s bench`` (``python -m infrabook.bench``) runs the experiments declared in
:mod:`~infrabook.bench.cpu` and, with CUDA, :mod:`~infrabook.bench.gpu`, and writes one record
per kind of device to ``docs/_data/bench/<device>.json``; :mod:`~infrabook.bench.report` is
what the pages use to show them.
"""
