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

The caller passes every field (in declaration order, or by position in a list of values), and is
responsible for the values being what ``__init__`` would accept (neither class
has a ``__post_init__``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["field_replacer", "indexed_constructor", "positional_constructor",
           "tuples_builder"]


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


def _compile(cls: type[Any], signature: str, prologue: str,
             constants: dict[str, Any] | None = None) -> Callable[..., Any]:
    """``def make(<signature>)``: ``prologue``, then each field ``f`` stored from variable
    ``v_f``."""
    names = [spec.name for spec in dataclasses.fields(cls)]
    assert not hasattr(cls, "__post_init__"), cls
    shadow = _shadow(cls)
    if shadow is not None:
        body = "".join(f"    o.{name} = v_{name}\n" for name in names)
        # _shadow() rather than object.__new__(_shadow): calling the class is quicker, and it
        # has neither __new__ nor __init__ of its own.
        source = (f"def make({signature}, _shadow=_shadow, _cls=_cls):\n"
                  f"{prologue}    o = _shadow()\n{body}    o.__class__ = _cls\n"
                  "    return o\n")
    else:
        setters = ", ".join(f"_s_{name}=_cls.{name}.__set__" for name in names)
        body = "".join(f"    _s_{name}(o, v_{name})\n" for name in names)
        source = (f"def make({signature}, _new=object.__new__, {setters}):\n"
                  f"{prologue}    o = _new(_cls)\n{body}    return o\n")
    namespace: dict[str, Any] = {"_cls": cls, "_shadow": shadow, "_defaults": _defaults(cls),
                                 "_constants": constants or {}}
    exec(source, namespace)  # generated from the class's own field names only
    make: Callable[..., Any] = namespace["make"]
    return make


def _defaults(cls: type[Any]) -> dict[str, Any]:
    return {spec.name: spec.default for spec in dataclasses.fields(cls)
            if spec.default is not dataclasses.MISSING}


def positional_constructor(cls: type[Any]) -> Callable[..., Any]:
    """A function taking every field of dataclass ``cls`` positionally, in order."""
    names = [spec.name for spec in dataclasses.fields(cls)]
    return _compile(cls, ", ".join(f"v_{name}" for name in names) + ", *", "")


def tuples_builder(cls: type[Any], ignored: int = 0
                   ) -> Callable[[Iterable[tuple[Any, ...]], Iterable[Any]], tuple[Any, ...]]:
    """A function ``make_all(heads, lasts)``: the tuple of one object of ``cls`` per pair of
    ``zip(heads, lasts)``, where ``head`` holds every field of ``cls`` but the last, in order,
    then ``ignored`` more items, and ``last`` is the last field (the reader's actions: the
    parsed fields and the codes of the cards dealt, then the line).

    One loop in one generated function rather than a call per object: the reader builds some
    20 actions per hand, and the call (from C, through ``map``) cost about a third of each.
    """
    names = [spec.name for spec in dataclasses.fields(cls)]
    assert not hasattr(cls, "__post_init__"), cls
    unpack = "".join(f"v_{name}, " for name in names[:-1])
    unpack += "".join(f"_ignored{i}, " for i in range(ignored))
    shadow = _shadow(cls)
    if shadow is not None:
        stores = "".join(f"        o.{name} = v_{name}\n" for name in names)
        source = ("def make_all(heads, lasts, *, _shadow=_shadow, _cls=_cls, _zip=zip):\n"
                  "    out = []\n    append = out.append\n"
                  f"    for ({unpack}), v_{names[-1]} in _zip(heads, lasts):\n"
                  f"        o = _shadow()\n{stores}        o.__class__ = _cls\n"
                  "        append(o)\n    return tuple(out)\n")
    else:
        setters = ", ".join(f"_s_{name}=_cls.{name}.__set__" for name in names)
        stores = "".join(f"        _s_{name}(o, v_{name})\n" for name in names)
        source = (f"def make_all(heads, lasts, *, _new=object.__new__, _zip=zip, {setters}):\n"
                  "    out = []\n    append = out.append\n"
                  f"    for ({unpack}), v_{names[-1]} in _zip(heads, lasts):\n"
                  f"        o = _new(_cls)\n{stores}        append(o)\n    return tuple(out)\n")
    namespace: dict[str, Any] = {"_cls": cls, "_shadow": shadow}
    exec(source, namespace)  # generated from the class's own field names only
    make_all: Callable[[Iterable[tuple[Any, ...]], Iterable[Any]], tuple[Any, ...]] = \
        namespace["make_all"]
    return make_all


_ARGUMENTS: tuple[str, ...] = ("rules", "actions", "user_fields", "source", "line", "index", "raw")


def indexed_constructor(cls: type[Any], positions: dict[str, int], constants: dict[str, Any],
                        arguments: tuple[str, ...] = _ARGUMENTS) -> Callable[..., Any]:
    """A function ``make(values, *arguments)``: each field named in ``positions`` is
    ``values[position]``, each in ``arguments`` the argument of that name, each in
    ``constants`` that value, and every other field its default (the reader's fast path:
    a hand from the values of its header lines, by where each key stands)."""
    defaults = _defaults(cls)
    lines = []
    for name in (spec.name for spec in dataclasses.fields(cls)):
        if name in arguments:
            continue
        if name in positions:
            lines.append(f"    v_{name} = values[{positions[name]:d}]\n")
        elif name in constants:
            lines.append(f"    v_{name} = _constants[{name!r}]\n")
        else:
            default = defaults[name]  # KeyError: the field has no default
            # A literal for the usual defaults (None, numbers, strings, ()): no lookup per call.
            literal = type(default) in (type(None), int, str, bool) or default == ()
            value = repr(default) if literal else f"_defaults[{name!r}]"
            lines.append(f"    v_{name} = {value}\n")
    signature = "values, " + ", ".join(f"v_{name}" for name in arguments) + ", *"
    return _compile(cls, signature, "".join(lines), constants=constants)


def field_replacer(cls: type[Any], name: str) -> Callable[[Any, Any], Any]:
    """A function ``replace(obj, value)``: a copy of ``obj`` (an instance of dataclass ``cls``)
    with field ``name`` set to ``value`` -- ``dataclasses.replace(obj, name=value)`` without the
    keyword call and the frozen ``__init__`` (the ingest worker's hand gets its actions)."""
    names = [spec.name for spec in dataclasses.fields(cls)]
    assert name in names, (cls, name)
    reads = "".join(f"    v_{field} = source.{field}\n" for field in names if field != name)
    replace: Callable[[Any, Any], Any] = _compile(cls, f"source, v_{name}", reads)
    return replace
