"""``python -m vectorize PATH...``: the file rewriter (`vectorize.cli`)."""

from .cli import main_entry

if __name__ == "__main__":
    main_entry()
