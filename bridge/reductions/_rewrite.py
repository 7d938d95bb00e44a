"""Iterative rewriting of frozen IR trees (expressions, statements, edges).

``rewrite(node, fn)`` rebuilds a tree bottom-up without recursion (sums such as
``leader[0] + ... + leader[N-1]`` nest N deep): every dataclass node is rebuilt from its
rewritten children, then passed to ``fn``, whose result replaces it. Spans are dropped
(``span=None``) so that rewritten trees compare by structure only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

_SKIP_FIELDS = frozenset({"span", "text"})


def _children(node: Any) -> list[Any]:
    if isinstance(node, tuple):
        return list(node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return [getattr(node, f.name) for f in dataclasses.fields(node) if f.name not in _SKIP_FIELDS]
    return []


def _is_tree(value: Any) -> bool:
    return isinstance(value, tuple) or (dataclasses.is_dataclass(value) and not isinstance(value, type))


def rewrite(node: Any, fn: Callable[[Any], Any]) -> Any:
    """Return ``node`` rebuilt bottom-up with ``fn`` applied to every dataclass node."""
    results: dict[int, Any] = {}
    keep: list[Any] = []  # keep originals alive so id() stays unique
    stack: list[tuple[Any, bool]] = [(node, False)]
    while stack:
        cur, done = stack.pop()
        if not _is_tree(cur):
            continue
        if not done:
            stack.append((cur, True))
            for child in _children(cur):
                if _is_tree(child) and id(child) not in results:
                    stack.append((child, False))
            continue
        if id(cur) in results:
            continue
        keep.append(cur)
        if isinstance(cur, tuple):
            results[id(cur)] = tuple(results.get(id(c), c) if _is_tree(c) else c for c in cur)
            continue
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(cur):
            value = getattr(cur, f.name)
            if f.name == "span":
                if value is not None:
                    changes["span"] = None
            elif f.name == "text":
                if isinstance(value, str) and value:
                    changes["text"] = ""
            elif _is_tree(value):
                new = results.get(id(value), value)
                if new is not value:
                    changes[f.name] = new
        rebuilt = dataclasses.replace(cur, **changes) if changes else cur
        results[id(cur)] = fn(rebuilt)
    return results.get(id(node), node)
