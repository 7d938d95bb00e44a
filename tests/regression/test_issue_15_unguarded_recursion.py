"""Issue 15: a model with one process whose unfolding does not end loads, and only the
assertions about that process are left unchecked.

Used to fail: ``Poll() = [g == 1] go -> Poll() [] Poll();`` (a choice that leads back
to its own process with no event or guard in between, as in a public telephone-exchange
model) refused the whole model at load. PAT 3.5 parses such a model and checks its
other assertions; its own unfolding of ``Poll()`` recurses until the stack overflows,
so PAT cannot check the assertions about ``Poll()`` either. bridge now reports those as
UNKNOWN with the error and its position, and checks the rest.
"""

from __future__ import annotations

import json

from bridge import api
from bridge.frontends.csp import load_csp
from bridge.ir import Outcome
from tests.cli.conftest import run_bridge

MODEL = """var g = 0;
Poll() = [g == 1] go -> Poll() [] Poll();
Other() = a -> Other();
#assert Other() deadlockfree;
#assert Poll() deadlockfree;
#assert Other() |= []<> a;
#assert Other() refines Poll();
"""


def test_the_other_assertions_are_checked() -> None:
    """Other() = a -> Other() never deadlocks and does a for ever: 1 and 3 hold
    (PAT: VALID, VALID); 2 and 4 need Poll() and are not checked."""
    model = load_csp("t.csp", MODEL)
    verdicts = api.check(model)
    assert [v.outcome for v in verdicts] == [Outcome.HOLDS, Outcome.UNKNOWN, Outcome.HOLDS,
                                             Outcome.UNKNOWN]
    assert [r.number for r in model.refused] == [2, 4]
    refused = verdicts[1]
    assert "process definition unfolds without end" in refused.reason
    assert refused.notes[0].startswith("t.csp:2:")


def test_cli_exit_code_text_and_json(tmp_path) -> None:
    path = tmp_path / "poll.csp"
    path.write_text(MODEL)
    done = run_bridge("check", str(path))
    assert done.code == 3, done.err
    assert "[2] Poll() deadlockfree  UNKNOWN (not checked: process definition unfolds" \
        in done.out
    assert "[3] Other() |= []<> a  HOLDS" in done.out
    done = run_bridge("check", "--json", "--assert", "4", str(path))
    assert done.code == 3
    record = json.loads(done.out)
    assert record["number"] == 4 and record["verdict"] == "unknown"
    assert record["system"] == "Other"
    done = run_bridge("check", "--assert", "1", str(path))
    assert done.code == 0 and "Poll" not in done.out
