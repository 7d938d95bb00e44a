"""The built-in functions a ``Call`` may name: PAT's math library and the operations of
the library classes PAT ships (``#import "PAT.Math";``, ``#import "PAT.Lib.Set";``...).

Data only: each ``Operation`` says what it takes and returns and whether it changes its
object; the engine implements them in ``semantics/library.py`` (a test checks that the
two agree). Types are words: ``int``, ``bool``, ``void``, or a class name (``Set``).

A method ``M`` of class ``C`` that reads its object is the function ``C.M`` whose first
argument is the object. One that changes it has two functions: ``C.M=`` returns the new
object and ``C.M`` (if the method returns something) its result, both computed from the
object before the call. ``C.new`` is the empty object (``new C()``). ``Math.F`` is a
function of ``PAT.Math``.

What each operation does follows PAT's library sources where we have read them (the
``Set`` class keeps its elements sorted and unique, so equal sets have equal values; a
``Queue`` refuses ``Dequeue`` on an empty queue with a runtime error) and C#'s
collection classes otherwise (``Stack.Pop`` of an empty stack, ``List.Get`` out of range
and ``HashTable.Add`` of a key already present are runtime errors, as the exceptions
C# throws there are in PAT).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Operation:
    """A library method (or ``Math`` function): parameter and result types, and whether
    it changes its object (``mutates``: lowered to ``C.M=``)."""

    params: tuple[str, ...]
    result: str
    mutates: bool = False


LIBRARIES: dict[str, str] = {
    "PAT.Lib.Set": "Set",
    "PAT.Lib.Queue": "Queue",
    "PAT.Lib.Stack": "Stack",
    "PAT.Lib.List": "List",
    "PAT.Lib.HashTable": "HashTable",
    "PAT.Lib.Hashtable": "HashTable",
}
"""``#import`` name -> class name, for the library classes bridge implements."""

MATH_LIBRARY = "PAT.Math"

SHIPPED = frozenset({
    MATH_LIBRARY, *LIBRARIES, "PAT.Lib.Array", "PAT.Lib.Example", "PAT.Lib.DBM",
})
"""The libraries of PAT 3.5's ``Lib`` folder: importing one is accepted; using what
bridge does not implement of them (``PAT.Lib.Array``, the demo ``PAT.Lib.Example``,
``PAT.Lib.DBM``) is refused where it is used."""

MATH: dict[str, Operation] = {
    "Pow": Operation(("int", "int"), "int"),
    "Abs": Operation(("int",), "int"),
    "Max": Operation(("int", "int"), "int"),
    "Min": Operation(("int", "int"), "int"),
}
"""``call(F, ...)`` after ``#import "PAT.Math";`` (integer versions of C#'s ``Math``)."""

METHODS: dict[str, dict[str, Operation]] = {
    "Set": {
        "Add": Operation(("int",), "bool", mutates=True),
        "Remove": Operation(("int",), "bool", mutates=True),
        "Contains": Operation(("int",), "bool"),
        "Count": Operation((), "int"),
        "Get": Operation(("int",), "int"),
        "IsOverlapping": Operation(("Set",), "bool"),
        "IsDisjoint": Operation(("Set",), "bool"),
        "Union": Operation(("Set", "Set"), "Set"),
        "Intersect": Operation(("Set", "Set"), "Set"),
        "Substract": Operation(("Set", "Set"), "Set"),
        # Keeps the elements whose positions are the 1-bits of the index (PAT's source
        # also returns them as an array, which bridge does not model: statement only).
        "GetSubsetByIndex": Operation(("int",), "void", mutates=True),
    },
    "Queue": {
        "Enqueue": Operation(("int",), "void", mutates=True),
        "Dequeue": Operation((), "int", mutates=True),
        "First": Operation((), "int"),
        "Last": Operation((), "int"),
        "Count": Operation((), "int"),
        "Contains": Operation(("int",), "bool"),
        "Clear": Operation((), "void", mutates=True),
    },
    "Stack": {
        "Push": Operation(("int",), "void", mutates=True),
        "Pop": Operation((), "int", mutates=True),
        "Peek": Operation((), "int"),
        "Count": Operation((), "int"),
        "Contains": Operation(("int",), "bool"),
        "Clear": Operation((), "void", mutates=True),
    },
    "List": {
        "Add": Operation(("int",), "void", mutates=True),
        "Insert": Operation(("int", "int"), "void", mutates=True),
        "Remove": Operation(("int",), "bool", mutates=True),
        "RemoveAt": Operation(("int",), "void", mutates=True),
        "Get": Operation(("int",), "int"),
        "Contains": Operation(("int",), "bool"),
        "IndexOf": Operation(("int",), "int"),
        "Count": Operation((), "int"),
        "Clear": Operation((), "void", mutates=True),
    },
    "HashTable": {
        "Add": Operation(("int", "int"), "void", mutates=True),
        "Remove": Operation(("int",), "void", mutates=True),
        "ContainsKey": Operation(("int",), "bool"),
        "ContainsValue": Operation(("int",), "bool"),
        "GetValue": Operation(("int",), "int"),
        "Count": Operation((), "int"),
        "Clear": Operation((), "void", mutates=True),
    },
}


def function_names() -> list[str]:
    """Return every function name a ``Call`` may carry (for the engine's self-check)."""
    names = [f"Math.{f}" for f in MATH]
    for cls, methods in METHODS.items():
        names.append(f"{cls}.new")
        for m, op in methods.items():
            if op.mutates:
                names.append(f"{cls}.{m}=")
                if op.result != "void":
                    names.append(f"{cls}.{m}")
            else:
                names.append(f"{cls}.{m}")
    return names
