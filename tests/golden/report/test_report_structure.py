"""Golden tests of the HTML report's structure (issue 14): the element tree of the
report of a small model (tags, ids, classes, data attributes; no text, so timings do
not matter), diffed against ``tests/golden/report/<model>.html.txt``. Graphs drawn by
Graphviz and plots drawn by matplotlib are kept opaque (their insides depend on the
tool's version). Refresh with ``pytest tests/golden/report --update-golden``."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from bridge import api

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
MODELS = ["tests/models/report/channels_and_barrier.csp", "tests/models/report/pingpong.pml"]
OPAQUE = {"graph-view", "cfg-graph", "plots"}  # drawn by Graphviz / matplotlib
SKIPPED = {"warning"}  # "Graphviz is not installed" and such
VOID = {"meta", "input", "br", "img", "link", "hr", "path", "line", "circle", "rect",
        "polygon", "ellipse", "polyline"}


class Skeleton(HTMLParser):
    """The element tree as indented lines: ``tag#id.class[data-x=1]``."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, hidden)

    @property
    def hidden(self) -> bool:
        return any(hidden for _tag, hidden in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if not self.hidden:
            name = tag + (f"#{values['id']}" if values.get("id") else "")
            name += "".join(f".{c}" for c in classes)
            data = sorted((k, v) for k, v in values.items() if k.startswith("data-"))
            name += "".join(f"[{k}={v}]" for k, v in data)
            if tag == "a" and values.get("href", "").startswith("#"):
                name += f"[href={values['href']}]"
            opaque = bool(OPAQUE & set(classes))
            skipped = bool(SKIPPED & set(classes))
            if not skipped:
                self.lines.append("  " * len(self.stack) + name + (" …" if opaque else ""))
            hide = opaque or skipped
        else:
            hide = True
        if tag not in VOID:
            self.stack.append((tag, hide))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        while self.stack:
            if self.stack.pop()[0] == tag:
                break


def skeleton(page: str) -> str:
    """Return the element tree of an HTML page (script and style bodies are text)."""
    parser = Skeleton()
    parser.feed(page)
    return "\n".join(parser.lines) + "\n"


def _report(path: str) -> str:
    model_file = api.load_model(path)
    results = []
    for system, prop in api.select_properties(model_file):
        # the Python engine, named: with ``auto`` the page would depend on what other
        # tests compiled and loaded before in the same process (a loaded library makes
        # auto run the C engine, with other statistics and notes)
        verdict = api.check_property(system, prop, api.CheckOptions(engine="python"))
        first = not any(r["system"] == system.name for r in results)
        results.append(api.verdict_json(path, system, prop, verdict, outline=first))
    page, _problems = api.render_report("golden", checks=results)
    return page


@pytest.mark.parametrize("path", MODELS, ids=[Path(m).stem for m in MODELS])
def test_report_structure_matches_golden(path: str, update_golden: bool,
                                         monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)  # relative model paths: the golden names them as given
    monkeypatch.setenv("BRIDGE_CACHE_DIR", str(tmp_path / "cache"))  # nothing compiled
    tree = skeleton(_report(path))
    golden = HERE / f"{Path(path).stem}.html.txt"
    if update_golden or not golden.exists():
        golden.write_text(tree, encoding="utf-8")
        if not update_golden:
            pytest.fail(f"{golden.name} did not exist; written now, review and commit it")
    assert tree == golden.read_text(encoding="utf-8")


def test_the_skeleton_sees_what_matters() -> None:
    tree = skeleton('<div class="msc" data-pages="2"><svg class="msc-page"><g class="step" '
                    'data-step="1"><a href="#src-0-3"><text>L3</text></a></g></svg></div>'
                    '<div class="graph-view"><svg><g id="x"></g></svg></div>'
                    '<p class="warning">no dot</p>')
    assert tree.splitlines() == [
        "div.msc[data-pages=2]", "  svg.msc-page", "    g.step[data-step=1]",
        "      a[href=#src-0-3]", "        text", "div.graph-view …"]
