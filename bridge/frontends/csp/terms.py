"""Walks over the CSP# syntax tree (no recursion where models can be machine-written:
process terms and the names they read; macro bodies, which are small, are rebuilt
recursively by ``substitute``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from bridge.frontends.csp import syntax as s


def expr_names(e: object, out: set[str]) -> None:
    """Add every identifier of a syntax expression/statement/array literal to ``out``."""
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        if isinstance(x, s.SName):
            out.add(x.name)
        elif isinstance(x, s.SCall):  # a macro's body may read more names
            out.add(x.function)
            stack.extend(x.args)
        elif isinstance(x, (tuple, list)):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, (s.Term, type)):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x) if f.name != "span")


def term_names(
    term: s.Term, cache: dict[int, frozenset[str]], macros: dict[str, object]
) -> frozenset[str]:
    """Return the identifiers a process term may read (an over-approximation: every
    name written in it or in the macros it uses, not descending into referenced
    definitions). Every subterm's set is cached on the way (post-order), so a chain of
    n nested terms costs O(n), not O(n^2)."""
    hit = cache.get(id(term))
    if hit is not None:
        return hit
    stack: list[tuple[s.Term, bool]] = [(term, False)]
    while stack:
        t, ready = stack.pop()
        if id(t) in cache:
            continue
        children = _subterms(t)
        if not ready:
            stack.append((t, True))
            stack.extend((c, False) for c in children if id(c) not in cache)
            continue
        names: set[str] = set()
        for f in dataclasses.fields(t):
            if f.name == "span":
                continue
            value = getattr(t, f.name)
            if isinstance(value, s.Term) or isinstance(value, tuple) and value and all(
                isinstance(v, s.Term) for v in value
            ):
                continue
            if isinstance(t, s.Case) and f.name == "branches":
                for cond, _ in value:
                    expr_names(cond, names)
            else:
                expr_names(value, names)
        for c in children:
            names |= cache[id(c)]
        pending = [n for n in names if n in macros]
        seen: set[str] = set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            inner: set[str] = set()
            expr_names(macros[name], inner)
            names |= inner
            pending.extend(n for n in inner if n in macros)
        cache[id(t)] = frozenset(names)
    return cache[id(term)]


def _subterms(t: s.Term) -> list[s.Term]:
    """Return the process terms directly inside ``t``."""
    out: list[s.Term] = []
    for f in dataclasses.fields(t):
        value = getattr(t, f.name)
        if isinstance(value, s.Term):
            out.append(value)
        elif isinstance(value, tuple) and value and all(isinstance(v, s.Term) for v in value):
            out.extend(value)
        elif isinstance(t, s.Case) and f.name == "branches":
            out.extend(body for _, body in value)
    return out


def all_terms(defs: Iterable[s.ProcDef]) -> Iterable[s.Term]:
    """Yield every process term of the definitions (iteratively)."""
    stack: list[s.Term] = [d.body for d in defs]
    while stack:
        t = stack.pop()
        yield t
        if isinstance(t, s.EventPrefix):
            stack.append(t.body)
        elif isinstance(t, (s.SendPrefix, s.RecvPrefix, s.Guard, s.Atomic, s.Hiding)):
            stack.append(t.body)
        elif isinstance(t, s.Binary):
            stack.extend(t.operands)
        elif isinstance(t, s.Indexed):
            stack.append(t.body)
        elif isinstance(t, s.IfProc):
            stack.append(t.then)
            if t.otherwise is not None:
                stack.append(t.otherwise)
        elif isinstance(t, s.Case):
            stack.extend(b for _, b in t.branches)
            if t.default is not None:
                stack.append(t.default)


def substitute(node: Any, mapping: dict[str, Any]) -> Any:
    """Return the syntax ``node`` (an expression, statement or block) with every name
    in ``mapping`` replaced by its value (macro expansion, PAT 3.4.2); an index
    variable of ``&& i:{..}@e`` hides a parameter of the same name in ``e``."""
    if isinstance(node, s.SName):
        return mapping.get(node.name, node)
    if isinstance(node, tuple):
        return tuple(substitute(x, mapping) for x in node)
    if isinstance(node, s.SIndexedOp):
        inner = {k: v for k, v in mapping.items()
                 if all(iv.name != k for iv in node.variables)}
        return dataclasses.replace(node, variables=substitute(node.variables, mapping),
                                   body=substitute(node.body, inner))
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changes = {
            f.name: substitute(getattr(node, f.name), mapping)
            for f in dataclasses.fields(node) if f.name != "span"
        }
        return dataclasses.replace(node, **changes)
    return node
