"""`kzoo zoo ...`: inspect the kernel zoo from the command line.

`agent/cli.py` calls `add_zoo_parser(subparsers)` while building its parser and hands
`args.command == "zoo"` to `run_zoo(args)`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kernel_zoo import _home, store

_COLUMNS = ("op", "version", "layer", "configs", "created")


def add_zoo_parser(subparsers: Any) -> None:
    """Add the `zoo` command, with its own `list` subcommand, to the main parser's subparsers."""
    zoo = subparsers.add_parser("zoo", help="inspect the kernel zoo")
    commands = zoo.add_subparsers(dest="zoo_command", metavar="COMMAND", required=True)
    listing = commands.add_parser(
        "list",
        help="list every version of every op",
        description="List zoo entries: the user zoo ($KZOO_HOME/zoo), then the shipped zoo.",
    )
    listing.add_argument("--json", action="store_true", help="print a JSON list to stdout")
    listing.add_argument(
        "--zoo", type=Path, metavar="DIR", help="list only this zoo folder (layer 'custom')"
    )


def _format_configs(configs: list[dict[str, Any]]) -> str:
    labels = []
    for config in configs:
        label = f"{config['arch']}/{config['dtype']}"
        if config["shape_bucket"] != store.ANY_SHAPE:
            label += f"/{config['shape_bucket']}"
        labels.append(label)
    return " ".join(labels)


def _table(entries: list[dict[str, Any]]) -> str:
    rows = [
        [
            entry["op"],
            entry["version"],
            entry["layer"],
            _format_configs(entry["configs"]),
            entry["created"],
        ]
        for entry in entries
    ]
    widths = [
        max(len(str(cell)) for cell in column) for column in zip(_COLUMNS, *rows, strict=True)
    ]
    lines = [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [list(_COLUMNS), *rows]
    ]
    return "\n".join(lines)


def _list(args: argparse.Namespace) -> int:
    if args.zoo is not None:
        zoo = args.zoo.expanduser()
        if not zoo.is_dir():
            raise store.ZooError(f"no such zoo folder: {zoo}")
        zoo_dirs: list[Path] | None = [zoo]
        # an explicit folder is always reported as "custom", even the user or shipped one
        entries = [{**entry, "layer": "custom"} for entry in store.list_entries(zoo_dirs)]
        searched = str(zoo.resolve())
    else:
        entries = store.list_entries()
        searched = f"{_home.user_zoo()} or {_home.SHIPPED_ZOO}"
    if args.json:
        print(json.dumps(entries, indent=2))
    elif not entries:
        print(f"no zoo entries in {searched}")
    else:
        print(_table(entries))
    return 0


def run_zoo(args: argparse.Namespace) -> int:
    """Run a parsed `kzoo zoo ...` command; 0 on success, 2 on a zoo error (told on stderr)."""
    try:
        if args.zoo_command == "list":
            return _list(args)
        raise store.ZooError(f"unknown zoo command: {args.zoo_command}")
    except store.ZooError as err:
        print(f"kzoo: error: {err}", file=sys.stderr)
        return 2
