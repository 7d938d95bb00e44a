"""Random small CSP# models for differential tests (cspsharp.md sections 2-6).

``CspModelGenerator(seed).model()`` returns the text of a model and a fairness notion
for its LTL assertion. The models mix what real PAT models use: globals, arrays and
bools; processes with parameters whose recursion arguments mix constants, parameters
and state (``P(n)``, ``P((i + 1) % 3)``); events with components; blocks with ``if``,
``while`` and local variables; guards, ``[]``, ``<>``, ``if``/``ifa``/``ifb``, ``case``,
``;``, ``atomic``, hiding, ``|||`` and ``||`` (also indexed and inside a body),
``#alphabet``; buffered and rendezvous channels, channel arrays and channel queries;
assertions of every kind. Values stay small (arithmetic modulo ``M``) so that most
models are finite and small. The same generator drives the out-of-tree fuzzing runs
that found tests/regression/test_csp_*recursion*.py.
"""
from __future__ import annotations

import random

FAIRNESS = ["none", "weak", "strong-local", "strong-global", "process-weak", "process-strong"]


class CspModelGenerator:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        r = self.r
        self.M = r.choice([2, 3, 4])
        self.N = r.choice([2, 3])
        self.ints = [f"x{k}" for k in range(r.randint(1, 2))]
        self.bools = ["fl"] if r.random() < 0.4 else []
        self.arrays = ["ar"] if r.random() < 0.6 else []
        self.events = ["a", "b", "c", "d"][: r.randint(2, 4)]
        self.chans: list[tuple[str, int, int | None]] = []  # name, cap, array size
        for k in range(r.randint(0, 2)):
            cap = r.choice([0, 0, 1, 2])
            size = self.N if r.random() < 0.25 else None
            self.chans.append((f"ch{k}", cap, size))
        self.procs: dict[str, int] = {}
        nproc = r.randint(1, 3)
        for k in range(nproc):
            self.procs[f"P{k}"] = r.choice([0, 1, 1, 2])
        self.used: set[str] = set()

    # ---------------- expressions -----------------
    def atom(self, scope: list[str]) -> str:
        r = self.r
        opts = [str(r.randint(0, self.M - 1))]
        opts += self.ints
        opts += scope
        if self.arrays:
            opts.append(f"ar[{self.index(scope)}]")
        if r.random() < 0.2:
            opts.append("N")
        return r.choice(opts)

    def index(self, scope: list[str]) -> str:
        r = self.r
        if r.random() < 0.5:
            return str(r.randint(0, self.N - 1))
        v = r.choice(self.ints + scope)
        return f"{v} % N" if r.random() < 0.7 else f"({v} + 1) % N"

    def iexpr(self, scope: list[str], d: int = 0) -> str:
        r = self.r
        if d > 1 or r.random() < 0.5:
            return self.atom(scope)
        op = r.choice(["+", "-", "*", "+", "%"])
        a, b = self.iexpr(scope, d + 1), self.iexpr(scope, d + 1)
        if op == "%":
            return f"({a}) % {r.randint(1, self.M)}"
        return f"({a} {op} {b})"

    def bounded(self, scope: list[str]) -> str:
        return f"({self.iexpr(scope)}) % {self.M}"

    def bexpr(self, scope: list[str], d: int = 0) -> str:
        r = self.r
        k = r.random()
        if d < 1 and k < 0.25:
            op = r.choice(["&&", "||"])
            return f"({self.bexpr(scope, d + 1)} {op} {self.bexpr(scope, d + 1)})"
        if d < 2 and k < 0.32:
            return f"!({self.bexpr(scope, d + 1)})"
        if self.bools and k < 0.42:
            return r.choice(self.bools)
        if k < 0.45:
            return r.choice(["true", "false"])
        if k < 0.5 and self.chans and any(s is None for _, _, s in self.chans):
            c = r.choice([n for n, _, s in self.chans if s is None])
            return f"call({r.choice(['cempty', 'cfull'])}, {c})"
        op = r.choice(["==", "!=", "<", "<=", ">", ">="])
        return f"{self.iexpr(scope)} {op} {self.iexpr(scope)}"

    # ---------------- statements -----------------
    def stmt(self, scope: list[str], locals_: list[str], d: int = 0) -> str:
        r = self.r
        k = r.random()
        if d < 2 and k < 0.15:
            return f"if ({self.bexpr(scope + locals_)}) {{ {self.stmt(scope, locals_, d + 1)} }}" + (
                f" else {{ {self.stmt(scope, locals_, d + 1)} }}" if r.random() < 0.5 else "")
        if d < 1 and k < 0.22:
            v = f"k{d}"
            body = self.stmt(scope, locals_ + [v], d + 1)
            return f"var {v} = 0; while ({v} < {r.randint(1, 3)}) {{ {body} {v} = {v} + 1; }}"
        if self.bools and k < 0.32:
            return f"fl = {r.choice(['!fl', 'true', 'false', self.bexpr(scope + locals_, 1)])};"
        if self.arrays and k < 0.5:
            return f"ar[{self.index(scope)}] = {self.bounded(scope + locals_)};"
        v = r.choice(self.ints)
        if k < 0.6:
            return f"{v} = ({v} + 1) % {self.M};"
        return f"{v} = {self.bounded(scope + locals_)};"

    def block(self, scope: list[str]) -> str:
        n = self.r.randint(1, 3)
        return "{" + " ".join(self.stmt(scope, []) for _ in range(n)) + "}"

    # ---------------- processes -----------------
    def event(self, scope: list[str]) -> str:
        r = self.r
        e = r.choice(self.events)
        comps = []
        for _ in range(r.choice([0, 0, 1, 1, 2])):
            comps.append(r.choice(scope) if scope and r.random() < 0.6 else str(r.randint(0, 2)))
        self.used.add(".".join([e] + [c if c.isdigit() else "0" for c in comps]))
        return ".".join([e] + comps)

    def chan(self, scope: list[str]) -> tuple[str, int]:
        name, cap, size = self.r.choice(self.chans)
        if size is None:
            return name, cap
        return f"{name}[{self.index(scope)}]", cap

    def call(self, scope: list[str], name: str | None = None) -> str:
        r = self.r
        name = name or r.choice(list(self.procs))
        n = self.procs[name]
        args = []
        for _ in range(n):
            k = r.random()
            if k < 0.3:
                args.append(str(r.randint(0, self.M - 1)))
            elif k < 0.5 and scope:
                args.append(r.choice(scope))
            elif k < 0.7 and scope:
                args.append(f"({r.choice(scope)} + 1) % {self.M}")
            elif k < 0.85:
                args.append(r.choice(self.ints))
            else:
                args.append(self.bounded(scope))
        return f"{name}({', '.join(args)})"

    def prefix(self, scope: list[str], d: int) -> str:
        r = self.r
        k = r.random()
        if self.chans and k < 0.3:
            c, _ = self.chan(scope)
            if r.random() < 0.5:
                vals = ".".join(f"({self.bounded(scope)})" if r.random() < 0.3 else self.atom(scope)
                                for _ in range(r.choice([1, 1, 2])))
                blk = self.block(scope) if r.random() < 0.2 else ""
                return f"{c}!{vals}{blk} -> {self.proc(scope, d + 1, True)}"
            y = f"y{d}"
            g = f"[{y} < {self.M}]" if r.random() < 0.2 else ""
            blk = self.block(scope + [y]) if r.random() < 0.3 else ""
            return f"{c}?{g}{y}{blk} -> {self.proc(scope + [y], d + 1, True)}"
        if k < 0.55:
            return f"{self.event(scope)}{self.block(scope)} -> {self.proc(scope, d + 1, True)}"
        if k < 0.6:
            return f"tau{self.block(scope)} -> {self.proc(scope, d + 1, True)}"
        return f"{self.event(scope)} -> {self.proc(scope, d + 1, True)}"

    def simple(self, scope: list[str]) -> str:
        r = self.r
        a = f"{self.event(scope)} -> Skip"
        return r.choice([a, "Skip", f"({a} [] {self.event(scope)} -> Skip)",
                         f"atomic {{ {self.event(scope)} -> {a} }}",
                         f"if ({self.bexpr(scope)}) {{ {a} }} else {{ Skip }}",
                         f"{self.event(scope)}{self.block(scope)} -> Skip"])

    def proc(self, scope: list[str], d: int = 0, g: bool = True) -> str:
        r = self.r
        if d > 3:
            return r.choice(["Skip", "Stop"] + [self.call(scope)] * (2 if g else 0))
        k = r.random()
        if k < 0.35:
            return self.prefix(scope, d)
        if k < 0.45:
            return f"([{self.bexpr(scope)}] {self.prefix(scope, d)})"
        if k < 0.55:
            op = r.choice(["[]", "[]", "<>"])
            return f"({self.proc(scope, d + 1, g)} {op} {self.proc(scope, d + 1, g)})"
        if k < 0.62:
            els = f" else {{ {self.proc(scope, d + 1, g)} }}" if r.random() < 0.7 else ""
            kw = r.choice(["if", "if", "ifa", "ifb"])
            if kw == "ifb":
                els = ""
            return f"{kw} ({self.bexpr(scope)}) {{ {self.proc(scope, d + 1, g)} }}{els}"
        if k < 0.68:
            return f"({self.simple(scope)}; {self.proc(scope, d + 1, g)})"
        if k < 0.72:
            return f"atomic {{ {self.proc(scope, d + 1, g)} }}"
        if k < 0.75:
            # interleaving inside a body: operands terminate (no recursion)
            a = f"{self.event(scope)} -> Skip"
            b = f"{self.event(scope)} -> {r.choice(['Skip', self.event(scope) + ' -> Skip'])}"
            op = r.choice(["|||", "|||", "||"])
            return f"(({a}) {op} ({b})); {self.call(scope)}"
        if k < 0.78:
            hid = ", ".join(sorted(set(r.sample(self.events, r.randint(1, len(self.events))))))
            return f"(({self.proc(scope, d + 1, g)}) \\ {{{hid}}})"
        if k < 0.81:
            return (f"case {{ {self.bexpr(scope)} : {self.proc(scope, d + 1, g)} "
                    f"default : {self.proc(scope, d + 1, g)} }}")
        if k < 0.84:
            return r.choice(["Skip", "Stop"])
        if g:
            return self.call(scope)
        return self.prefix(scope, d)

    def define(self, name: str, n: int) -> str:
        params = [f"i{k}" for k in range(n)]
        head = f"{name}({', '.join(params)})" if n or self.r.random() < 0.5 else name
        return f"{head} = {self.proc(params, 0, False)};"

    def system(self) -> str:
        r = self.r
        names = list(self.procs)
        k = r.random()
        if k < 0.2:
            return self.call([], names[0])
        if k < 0.35 and self.procs[names[0]] >= 1:
            op = r.choice(["|||", "||"])
            args = ", ".join(["x"] + [str(r.randint(0, self.M - 1))
                                      for _ in range(self.procs[names[0]] - 1)])
            return f"{op} x:{{0..{self.N - 1}}} @ {names[0]}({args})"
        parts = [self.call([], n) for n in r.sample(names, min(len(names), r.randint(1, 3)))]
        if len(parts) == 1:
            parts.append(self.call([]))
        ops = [r.choice(["|||", "||", "|||"]) for _ in parts[1:]]
        out = parts[0]
        for op, p in zip(ops, parts[1:], strict=True):
            out = f"({out} {op} {p})"
        return out

    def model(self) -> tuple[str, str]:
        r = self.r
        lines = [f"#define N {self.N};"]
        for v in self.ints:
            lines.append(f"var {v} = {r.randint(0, self.M - 1)};")
        for v in self.bools:
            lines.append(f"var {v} = {r.choice(['true', 'false'])};")
        for v in self.arrays:
            if r.random() < 0.5:
                lines.append(f"var {v}[N];")
            else:
                lines.append(f"var {v}[N] = [{', '.join(str(r.randint(0, 1)) for _ in range(self.N))}];")
        for name, cap, size in self.chans:
            lines.append(f"channel {name}{f'[{size}]' if size else ''} {cap};")
        for name, n in self.procs.items():
            lines.append(self.define(name, n))
        if r.random() < 0.3:
            ev = r.sample(self.events, r.randint(1, len(self.events)))
            lines.append(f"#alphabet {r.choice(list(self.procs))} {{{', '.join(ev)}}};")
        lines.append(f"Sys() = {self.system()};")
        lines.append(f"Spec() = {self.proc([], 2, False)};")
        lines.append(f"#define goal {self.bexpr([])};")
        asserts = ["Sys() deadlockfree"]
        pool = sorted(self.used) or ["goal"]
        ev = [r.choice(pool) for _ in range(2)]
        ltl = r.choice([f"[]<> {ev[0]}", f"[]({ev[0]} -> <> {ev[1]})", "<> goal", "[] !goal",
                        f"<>[] !{ev[0]}", f"[](goal -> <> {ev[0]})", f"!{ev[0]} U goal",
                        "[]<> goal", f"<> {ev[0]}"])
        asserts.append(f"Sys() |= {ltl}")
        extra = r.choice(["reaches goal", "nonterminating", "divergencefree",
                          "deterministic", "refines Spec()", "refines <F> Spec()",
                          "refines <FD> Spec()", "reaches goal with max(x0)"])
        asserts.append(f"Sys() {extra}")
        r.shuffle(asserts)
        lines += [f"#assert {a};" for a in asserts]
        return "\n".join(lines) + "\n", r.choice(FAIRNESS)


def random_csp_model(seed: int) -> tuple[str, str]:
    """Return the model text of ``seed`` and a fairness notion for its LTL assertion."""
    return CspModelGenerator(seed).model()
