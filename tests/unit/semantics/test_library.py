"""The built-in library functions (bridge/semantics/library.py) against their catalogue
(bridge/ir/library.py) and PAT's behaviour (issue 15)."""

from __future__ import annotations

import pytest

from bridge.ir.library import function_names
from bridge.semantics.library import FUNCTIONS, LibraryError, show_value


def test_every_catalogued_function_is_implemented_and_nothing_else() -> None:
    assert set(function_names()) == set(FUNCTIONS)


def test_set_is_sorted_and_unique() -> None:
    s = FUNCTIONS["Set.new"]()
    for x in (3, 1, 3, 2):
        s = FUNCTIONS["Set.Add="](s, x)
    assert s == (1, 2, 3)
    assert FUNCTIONS["Set.Add"](s, 2) is False and FUNCTIONS["Set.Add"](s, 5) is True
    assert FUNCTIONS["Set.Remove="](s, 2) == (1, 3)
    assert FUNCTIONS["Set.Get"](s, 0) == 1
    assert FUNCTIONS["Set.Union"](s, (0,), (9,)) == (0, 9)
    assert FUNCTIONS["Set.Substract"](s, (1, 2, 3), (2,)) == (1, 3)
    # PAT: the positions of the 1-bits of the index, lowest bit first.
    assert FUNCTIONS["Set.GetSubsetByIndex="]((4, 5, 6), 5) == (4, 6)


def test_queue_and_stack_orders() -> None:
    q = FUNCTIONS["Queue.Enqueue="](FUNCTIONS["Queue.Enqueue="]((), 1), 2)
    assert FUNCTIONS["Queue.Dequeue"](q) == 1 and FUNCTIONS["Queue.Dequeue="](q) == (2,)
    st = FUNCTIONS["Stack.Push="](FUNCTIONS["Stack.Push="]((), 1), 2)
    assert FUNCTIONS["Stack.Pop"](st) == 2 and FUNCTIONS["Stack.Pop="](st) == (1,)


@pytest.mark.parametrize(
    "name, args, fragment",
    [
        ("Queue.Dequeue", ((),), "empty queue"),
        ("Queue.Dequeue=", ((),), "empty queue"),
        ("Stack.Pop", ((),), "empty stack"),
        ("List.Get", ((1,), 3), "out of range"),
        ("HashTable.Add=", (((1, 2),), 1, 5), "already"),
        ("HashTable.GetValue", ((), 1), "not in"),
        ("Math.Pow", (0, -1), "infinite"),
        ("Math.Pow", (2, 40), "32-bit"),
    ],
)
def test_failing_calls_raise_library_errors(name: str, args: tuple, fragment: str) -> None:
    with pytest.raises(LibraryError, match=fragment):
        FUNCTIONS[name](*args)


def test_pow_truncates_like_a_csharp_cast() -> None:
    assert FUNCTIONS["Math.Pow"](2, 10) == 1024
    assert FUNCTIONS["Math.Pow"](2, -1) == 0
    assert FUNCTIONS["Math.Pow"](-1, -3) == -1


def test_values_print_as_pat_prints_them() -> None:
    assert show_value((1, 2)) == "[1,2]"
    assert show_value(((1, 10),)) == "[1:10]"


def test_a_bool_put_into_a_library_value_is_stored_as_an_int() -> None:
    """README, "a stored bool is an int": an element is 1 or 0, never True/False, so
    it prints and names as a number (``e.(1,)``, ``[1]``) in every search;
    ``Contains(true)`` still finds it, and True and 1 are one element."""
    added = {
        "Set.Add=": ((), True), "Queue.Enqueue=": ((), True), "Stack.Push=": ((), True),
        "List.Add=": ((), True), "List.Insert=": ((), 0, True),
    }
    for name, args in added.items():
        value = FUNCTIONS[name](*args)
        assert value == (1,) and type(value[0]) is int, name
        assert str(value) == "(1,)" and show_value(value) == "[1]"
    table = FUNCTIONS["HashTable.Add="]((), False, True)
    assert table == ((0, 1),) and all(type(x) is int for x in table[0])
    s = FUNCTIONS["Set.Add="]((), True)
    assert FUNCTIONS["Set.Add="](s, 1) == (1,)
    assert FUNCTIONS["Set.Contains"](s, True) is True
    assert FUNCTIONS["List.IndexOf"](FUNCTIONS["List.Add="]((), False), False) == 0
