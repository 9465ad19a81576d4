"""Fast constructors for the frozen, slotted model classes (a private speed-up).

A frozen dataclass's generated ``__init__`` sets every field through
``object.__setattr__``, which costs about twice as much as an ordinary attribute
store.  The reader builds millions of :class:`~parsers.model.Action` and
:class:`~parsers.model.HandHistory` objects, so it uses these instead: the object
is made as an instance of a *shadow* class -- a subclass adding no slot, hence the
same memory layout, with neither the frozen ``__setattr__`` nor the ``__init__`` -- whose
slots are filled by plain attribute stores (which the interpreter specialises for slots),
and its ``__class__`` is then set to the real class.  The result is an ordinary
instance, equal to (and indistinguishable from) what the class itself builds.
When the shadow cannot stand in (a layout Python refuses to swap), the slots'
own ``__set__`` descriptors are called instead.

The caller passes every field (in declaration order), and is responsible for the values
being what ``__init__`` would accept (no class built so has a ``__post_init__``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

__all__ = ["positional_constructor"]


def _shadow(cls: type[Any]) -> type[Any] | None:
    """A mutable class with the layout of ``cls``, or None when ``__class__`` cannot be swapped.

    A subclass that adds no slot rather than a sibling with the same ``__slots__``: setting
    ``__class__`` from a sibling compares the two classes' slot names, a quarter of the swap,
    which Python skips when one class only extends the other without adding to its layout.
    """
    if cls in _SHADOWS:  # one per class: the reader makes a hand constructor per layout
        return _SHADOWS[cls]
    shadow = _SHADOWS[cls] = _new_shadow(cls)
    return shadow


_SHADOWS: dict[type[Any], type[Any] | None] = {}


def _new_shadow(cls: type[Any]) -> type[Any] | None:
    slots = cls.__dict__.get("__slots__")
    if cls.__bases__ != (object,) or not isinstance(slots, tuple):
        return None
    # object's own __setattr__ and __delattr__ make the class's stores the generic (and
    # specialised) slot stores again; object's __init__ lets it be called without arguments.
    shadow = type(f"_{cls.__name__}Shadow", (cls,), {
        "__slots__": (), "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__, "__init__": object.__init__,
    })
    probe: Any = object.__new__(shadow)
    try:
        probe.__class__ = cls
    except TypeError:  # a layout Python will not swap
        return None
    return shadow


def positional_constructor(cls: type[Any]) -> Callable[..., Any]:
    """A function taking every field of dataclass ``cls`` positionally, in order."""
    names = [spec.name for spec in dataclasses.fields(cls)]
    assert not hasattr(cls, "__post_init__"), cls
    signature = ", ".join(f"v_{name}" for name in names) + ", *"
    shadow = _shadow(cls)
    if shadow is not None:
        body = "".join(f"    o.{name} = v_{name}\n" for name in names)
        # _shadow() rather than object.__new__(_shadow): calling the class is quicker, and it
        # has neither __new__ nor __init__ of its own.
        source = (f"def make({signature}, _shadow=_shadow, _cls=_cls):\n"
                  f"    o = _shadow()\n{body}    o.__class__ = _cls\n"
                  "    return o\n")
    else:
        setters = ", ".join(f"_s_{name}=_cls.{name}.__set__" for name in names)
        body = "".join(f"    _s_{name}(o, v_{name})\n" for name in names)
        source = (f"def make({signature}, _new=object.__new__, {setters}):\n"
                  f"    o = _new(_cls)\n{body}    return o\n")
    namespace: dict[str, Any] = {"_cls": cls, "_shadow": shadow}
    exec(source, namespace)  # generated from the class's own field names only
    make: Callable[..., Any] = namespace["make"]
    return make
