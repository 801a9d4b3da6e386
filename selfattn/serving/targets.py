"""A library's internals named by short specs, found and checked, or an error naming the one that moved.

A spec is ``"module:name(its parameters)"`` for a function or ``"module:name{the fields read}"`` for a class
(``name`` may be dotted: ``Class.method``). :func:`find` imports the module, walks to the name and compares its
parameters (all of them, in order) or looks up each field; :func:`wrap` replaces what a ``module:name`` names, once.
``ui/streamlit_hooks.py`` names Streamlit's private names this way, so that an upgrade that moved one stops the app at
start-up instead of turning a guard off.
Plain Python, tested against the standard library (tests/test_server_limits.py).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re

SEE = "see docs/streamlit-upgrade.md"


class HookMissing(RuntimeError):
    """An internal a hook needs is missing or has changed (named in the message)."""


def name_of(target: str) -> str:
    """The ``module:name`` of a spec."""
    return re.split(r"[({]", target)[0]


def find(target: str):
    """The object ``target`` names, checked; :class:`HookMissing` naming it if it moved or changed."""
    module, name, params, fields = re.fullmatch(r"([\w.]+):([\w.]+)(?:\((.*)\)|\{(.*)\})", target).groups()
    wanted = [p.strip() for p in (params if params is not None else fields).split(",") if p.strip()]
    try:
        found = functools.reduce(getattr, name.split("."), importlib.import_module(module))
    except (ImportError, AttributeError) as missing:
        raise HookMissing(f"there is no {module}:{name} ({missing}); {SEE}") from None
    have = list(inspect.signature(found).parameters) if params is not None else [f for f in wanted if _has(found, f)]
    if have != wanted:
        raise HookMissing(f"{module}:{name} has {have}, the hook needs {wanted}; {SEE}")
    return found


def wrap(target: str, make, owner=None) -> None:
    """``target`` (``module:name``, or ``:name``, an attribute of ``owner``) replaced by ``make(original)``, once: a
    second call finds the replacement marked and leaves it."""
    module, _, name = target.partition(":")
    *path, attr = name.split(".")
    owner = functools.reduce(getattr, path, importlib.import_module(module)) if owner is None else owner
    original = getattr(owner, attr)
    if not getattr(original, "selfattn_hook", False):
        setattr(owner, attr, functools.wraps(original)(make(original)))
        getattr(owner, attr).selfattn_hook = True


def _has(cls, field: str) -> bool:
    """Whether ``cls`` has ``field``: a dataclass or named tuple field, a class attribute or annotation, or set by
    ``__init__``."""
    declared = (*getattr(cls, "__dataclass_fields__", ()), *getattr(cls, "_fields", ()),
                *getattr(cls, "__annotations__", ()))
    if field in declared or hasattr(cls, field):
        return True
    try:
        return re.search(rf"self\.{field}\s*[:=]", inspect.getsource(cls.__init__)) is not None
    except (OSError, TypeError):  # no source: a generated __init__
        return False
