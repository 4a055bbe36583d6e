"""The NumPy rule tables (the NumPy backend's, `vectorize.backends.numpy`), the registry types,
and `register_rule`. Each backend has one registry (``backend.registry``)."""

from __future__ import annotations

from .. import backends
from .registry import Registry, Rule, Site

__all__ = ["NUMPY", "Registry", "Rule", "Site", "register_rule", "registry_for"]


def registry_for(namespace: str) -> Registry:
    """The rules of the backend named ``namespace``."""
    return backends.get(namespace).registry


NUMPY = registry_for("numpy")


def register_rule(func, template: str | None = None, *, name: str | None = None,
                  explanation: str | None = None, params=None, may_warn: bool = True,
                  namespace: str = "numpy") -> Rule:
    """Teach vectorize how a function of yours batches.

    Without ``template`` the function is declared elementwise: it already works lane by lane
    on arrays (``scipy.special.erf``, a function written with NumPy ufuncs), so calls stay as
    written. With ``template`` (an expression over ``{param}`` placeholders named after the
    function's parameters, or ``params=``) each call is rewritten to it::

        register_rule(my_clip01, "np.clip({x}, 0.0, 1.0)")
    """
    from ..diskcache import note_rule
    from .families import elementwise, template_rule

    reg = registry_for(namespace)
    label = name or f"user.{getattr(func, '__qualname__', getattr(func, '__name__', 'f'))}"
    fname = getattr(func, "__name__", "f")
    if template is None:
        note_rule(func, None, label, None, may_warn, namespace)
        return elementwise(reg, [func], family="user", name=label,
                           explanation=explanation or f"`{fname}` works lane by lane on arrays "
                                                      "(registered by the user).",
                           before=f"y = {fname}(x)", after=f"y = {fname}(x)",
                           may_warn=may_warn)
    if params is None:
        import inspect
        params = tuple(inspect.signature(func).parameters)
    note_rule(func, template, label, params, may_warn, namespace)
    return template_rule(reg, [func], template, family="user", name=label,
                         explanation=explanation or f"`{fname}` rewritten by a user template.",
                         before=f"y = {fname}({', '.join(params)})", after="y = " + template,
                         params=tuple(params), may_warn=may_warn)
