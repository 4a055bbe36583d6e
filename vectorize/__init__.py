"""vectorize: write a function for one example, get readable batched NumPy."""

from .api import VectorizeFallbackWarning, explain, vectorize
from .errors import VectorizeError, VectorizeWarning
from .vmap import vmap

__all__ = ["VectorizeError", "VectorizeFallbackWarning", "VectorizeWarning", "explain",
           "register_rule", "vectorize", "vmap"]
__version__ = "0.1.0"


def register_rule(func, template=None, **options):
    """Teach vectorize how a function of yours batches; see `vectorize.rules.register_rule`."""
    from .rules import register_rule as _register  # keeps `import vectorize` light

    return _register(func, template, **options)
