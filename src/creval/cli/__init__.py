"""The ``creval`` command. Thin: parse arguments, call the library, print with rich.

Sub-command modules live in this package and attach themselves to :data:`main` on import (each module does
``from creval.cli import main`` and decorates its commands with ``@main.command()`` / ``@main.group()``).
A user mistake raises :class:`creval.errors.InputError`, printed as one line with exit status 2.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from creval._version import __version__
from creval.errors import InputError


class _Group(click.Group):
    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except InputError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="creval")
def main() -> None:
    """creval: evaluate creative generation systems (lyrics, poetry, symbolic music).

    Start with `creval demo`, then `creval evaluate --corpus DIR --generations FILE --out DIR`.
    """


def _load_commands() -> None:
    for info in pkgutil.iter_modules(__path__, prefix=__name__ + "."):
        if not info.name.rsplit(".", 1)[-1].startswith("_"):
            importlib.import_module(info.name)


_load_commands()
