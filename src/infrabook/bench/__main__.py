"""``python -m infrabook.bench``: run the benchmark suite (see :mod:`infrabook.bench.run`)."""

import sys

from infrabook.bench.run import main

if __name__ == "__main__":
    sys.exit(main())
