"""The benchmark suite: measurements that check the article's models on real hardware.

``nox -s bench`` (``python -m infrabook.bench``) runs the experiments that
:mod:`~infrabook.bench.suite` lists (one module per experiment, each with its CPU and GPU
variants; the GPU ones need CUDA, :mod:`~infrabook.bench.cuda`) and writes one record per
machine to ``docs/_data/bench/<machine>.json``; :mod:`~infrabook.bench.report` is what the
pages use to show them. Records are declared once, in types (:mod:`~infrabook.bench.entry`,
:mod:`~infrabook.bench.results`, their rules in :mod:`~infrabook.bench.schema`), and are read
(:mod:`~infrabook.bench.record`, :mod:`~infrabook.bench.validate`) without torch.
"""
