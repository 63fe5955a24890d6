"""The benchmark suite: measurements that check the article's models on real hardware.

``nox -s bench`` (or ``python -m infrabook.bench``) runs every experiment the machine can
run and writes one record per kind of device to ``docs/_data/bench/<device>.json``;
:mod:`infrabook.bench.report` is what the pages use to show them. The experiments are
declared in :mod:`infrabook.bench.cpu` (fusion, attention_memory, launches, shapes:
always) and :mod:`infrabook.bench.gpu` (gpu_swiglu, gpu_flash, gpu_graphs,
gpu_persistent: with CUDA); :mod:`infrabook.bench.registry` lists them in suite order.
"""
