"""Fast constructors for the frozen, slotted model classes (a private speed-up).

A frozen dataclass's generated ``__init__`` sets every field through
``object.__setattr__``, which costs about twice as much as calling the slots'
own descriptors.  The reader builds millions of :class:`~parsers.model.Action`
and :class:`~parsers.model.HandHistory` objects, so it uses these instead.  The
objects are ordinary instances, equal to (and indistinguishable from) what the
class itself builds; the caller passes every field, in declaration order, and is
responsible for the values being what ``__init__`` would accept (neither class
has a ``__post_init__``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

__all__ = ["positional_constructor"]


def positional_constructor(cls: type[Any]) -> Callable[..., Any]:
    """A function taking every field of dataclass ``cls`` positionally, in order."""
    names = [spec.name for spec in dataclasses.fields(cls)]
    assert not hasattr(cls, "__post_init__"), cls
    arguments = ", ".join(f"v{i}" for i in range(len(names)))
    setters = ", ".join(f"_s{i}=_cls.{name}.__set__" for i, name in enumerate(names))
    body = "".join(f"    _s{i}(o, v{i})\n" for i in range(len(names)))
    source = (f"def make({arguments}, *, _new=object.__new__, {setters}):\n"
              f"    o = _new(_cls)\n{body}    return o\n")
    namespace: dict[str, Any] = {"_cls": cls}
    exec(source, namespace)  # generated from the class's own field names only
    make: Callable[..., Any] = namespace["make"]
    return make
