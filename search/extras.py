"""Optional packages, installed as extras of the caravan package (see pyproject.toml): the
default install plays, searches and speaks the protocol without them.

    ratings  openskill    the arena's openskill ratings
    plots    matplotlib   the arena's and the ladder's charts (with --out)
    ray      ray          more than one search worker, a Ray cluster

A missing one is a MissingExtra whose message is one line saying what to install.
"""
from __future__ import annotations

import importlib

EXTRA_OF = {"openskill": "ratings", "matplotlib": "plots", "ray": "ray"}


class MissingExtra(RuntimeError):
    """An optional package that is needed now and is not installed; the message says which
    extra installs it (`caravan` exits 2 with it)."""


def require(module: str, purpose: str):
    """The imported `module` (e.g. "openskill.models"), or MissingExtra saying that its
    package is needed for `purpose` and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.split(".")[0]
        raise MissingExtra(f"{package} is needed for {purpose} and is not installed: "
                           f"pip install 'caravan[{EXTRA_OF[package]}]'") from None
