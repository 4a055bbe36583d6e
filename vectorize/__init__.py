"""vectorize: write a function for one example, get readable batched NumPy."""

from .api import VectorizeFallbackWarning, vectorize
from .errors import VectorizeError
from .rules import register_rule
from .vmap import vmap

__all__ = ["VectorizeError", "VectorizeFallbackWarning", "register_rule", "vectorize", "vmap"]
__version__ = "0.1.0"
