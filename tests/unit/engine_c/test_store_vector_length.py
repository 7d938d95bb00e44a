"""The width of the length the C store keeps before each vector of a dynamic model
(``templates/c/store.c``, ``br_vlen_t``): 2 bytes while the model's longest vector
(BR_MAXVEC) and the refinement search's 4 more bytes fit in them, so small models keep
today's bytes per state; 4 bytes past that (Promela ``int a[20000]``: 80,003 bytes, run
against the Python engine in tests/differential/test_engine_c_big_vectors.py)."""

from __future__ import annotations

import re
import subprocess

import pytest

from bridge._resources import template_dir
from bridge.engine_c.build import find_compiler
from tests.conftest import in_ci

pytestmark = pytest.mark.skipif(find_compiler() is None and not in_ci(), reason="no C compiler")


def _length_type(max_vector: int) -> str:
    source = (template_dir() / "c" / "store.c").read_text(encoding="utf-8")
    compiler = find_compiler()
    assert compiler is not None
    out = subprocess.run([compiler, "-E", "-P", "-x", "c", "-"], check=True, text=True,
                         capture_output=True,
                         input=f"#define BR_MAXVEC {max_vector}\n{source}").stdout
    [width] = re.findall(r"typedef (\w+) br_vlen_t;", out)
    return width


@pytest.mark.parametrize(("max_vector", "width"), [
    (1, "uint16_t"), (65531, "uint16_t"), (65532, "uint32_t"), (80003, "uint32_t")])
def test_the_length_is_as_wide_as_the_longest_vector_needs(max_vector: int, width: str) -> None:
    assert _length_type(max_vector) == width
