"""Plugin discovery: measures, report sections and CLI commands register themselves on import.

A later feature only adds a module under one of :data:`PLUGIN_PACKAGES`; :func:`discover` imports every module
in those packages once, which runs their ``@register_*`` decorators. Modules must import heavy libraries
(torch, music21, …) lazily, inside functions, so that discovery stays fast.
"""

from __future__ import annotations

import importlib
import pkgutil

PLUGIN_PACKAGES: tuple[str, ...] = (
    "creval.metrics",
    "creval.rhyme",
    "creval.music",
    "creval.analysis",
    "creval.report.sections",
)

_done: set[str] = set()


def discover(packages: tuple[str, ...] = PLUGIN_PACKAGES) -> None:
    """Import every module of the plugin packages (idempotent)."""
    for pkg_name in packages:
        if pkg_name in _done:
            continue
        _done.add(pkg_name)
        try:
            pkg = importlib.import_module(pkg_name)
        except ModuleNotFoundError:
            continue
        for info in pkgutil.iter_modules(pkg.__path__, prefix=pkg_name + "."):
            if info.name.rsplit(".", 1)[-1].startswith("_"):
                continue
            importlib.import_module(info.name)
