"""Build hook: ship the top-level grammars/ and templates/ inside the wheel.

DESIGN.md keeps them at the repository root; a wheel needs them inside the package,
so build_py copies them to bridge/_data/. bridge/_resources.py looks there first.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithData(build_py):
    def run(self) -> None:
        super().run()
        root = Path(__file__).resolve().parent
        for name in ("grammars", "templates"):
            source = root / name
            if source.is_dir():
                target = Path(self.build_lib) / "bridge" / "_data" / name
                shutil.copytree(source, target, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildPyWithData})
