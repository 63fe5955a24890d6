"""``python -m infrabook.bench``: run the benchmark suite (see :mod:`infrabook.bench.run`)."""

from infrabook.bench.run import main

if __name__ == "__main__":
    raise SystemExit(main())
