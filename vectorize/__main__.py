"""``python -m vectorize PATH...``: the file rewriter (`vectorize.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
