"""Regression: ``#include "..\\world.csp";`` (a relative path written with Windows
separators) was refused with "cannot read included file" (issue 15, public-model survey).

PAT 3.5 is a Windows program: it resolves an include path against the folder of the file
that includes it, and there ``\\`` separates folders, so ``..\\world.csp`` is
``world.csp`` one folder up and ``lib\\defs.csp`` is ``defs.csp`` in the folder ``lib``.
Model (ours): ``robot/main.csp`` includes ``..\\world.csp`` (``#define N 2;``) and
``parts\\step.csp`` (``Step = a{x = x + 1} -> Skip;``); ``P = [x < N] Step; P;`` with
``#define done x == N; #assert P reaches done;`` is VALID in PAT (x counts 0, 1, 2), and
``P deadlockfree`` is NOT VALID (P blocks at x == 2, not terminated).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge import api
from bridge.diagnostics import BridgeError
from bridge.frontends.csp import load_csp
from bridge.ir import Outcome


def _write_model(root: Path) -> Path:
    (root / "world.csp").write_text("#define N 2;\n")
    (root / "robot" / "parts").mkdir(parents=True)
    (root / "robot" / "parts" / "step.csp").write_text("Step = a{x = x + 1} -> Skip;\n")
    main = root / "robot" / "main.csp"
    main.write_text('#include "..\\world.csp";\n#include "parts\\step.csp";\nvar x = 0;\n'
                    "P = [x < N] Step; P;\n#define done x == N;\n"
                    "#assert P reaches done;\n#assert P deadlockfree;\n")
    return main


def test_backslash_include_paths_are_folders(tmp_path: Path) -> None:
    main = _write_model(tmp_path)
    outcomes = [api.check_property(s, p, api.CheckOptions()).outcome
                for s, p in load_csp(str(main)).properties()]
    assert outcomes == [Outcome.HOLDS, Outcome.VIOLATED]


def test_missing_backslash_include_is_a_clear_error(tmp_path: Path) -> None:
    main = tmp_path / "main.csp"
    main.write_text('#include "..\\nowhere.csp";\nP = a -> P;\n')
    with pytest.raises(BridgeError, match=r"main\.csp:1:10: .*cannot read included file"):
        load_csp(str(main))
