"""Computes the package list for setuptools; everything else is in pyproject.toml.

The three folders map onto one namespace (core/ → rollbridge, plugins/ →
rollbridge.plugins, adapters/ → rollbridge.adapters). setuptools cannot find
packages across such a mapping by itself, and a package missing from the list
is silently missing from the wheel, so the list is derived from the tree.
"""

from pathlib import Path

from setuptools import setup

ROOTS = {"rollbridge": "core", "rollbridge.plugins": "plugins", "rollbridge.adapters": "adapters"}


def find_packages() -> list[str]:
    """Every folder with an ``__init__.py`` under the three roots, as a dotted name."""
    here = Path(__file__).parent
    names = []
    for namespace, folder in ROOTS.items():
        root = here / folder
        for init in sorted(root.rglob("__init__.py")):
            parts = init.parent.relative_to(root).parts
            if "node_modules" in parts or "__pycache__" in parts:
                continue
            names.append(".".join((namespace, *parts)))
    return names


setup(packages=find_packages())
