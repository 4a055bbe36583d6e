"""The file rewriter: marked functions of a file become batched functions, in the file.

`module.rewrite_text` rewrites one file's text; `vectorize.cli` reads and writes files.
"""

from .module import Outcome, rewrite_text

__all__ = ["Outcome", "rewrite_text"]
