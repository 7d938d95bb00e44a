"""The intermediate representation: the hub every room depends on (DESIGN.md section 2).

Data only: frozen dataclasses with source spans; imports only ``bridge.diagnostics``.
"""

from bridge.ir.expr import *  # noqa: F403
from bridge.ir.model import *  # noqa: F403
from bridge.ir.property import *  # noqa: F403
from bridge.ir.types import *  # noqa: F403
from bridge.ir.verdict import *  # noqa: F403
