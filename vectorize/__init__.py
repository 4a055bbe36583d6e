"""vectorize: write a function for one example, get readable batched NumPy."""

from .api import VectorizeFallbackWarning, vectorize
from .errors import VectorizeError
from .vmap import vmap

__all__ = ["VectorizeError", "VectorizeFallbackWarning", "vectorize", "vmap"]
__version__ = "0.1.0"
