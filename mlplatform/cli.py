"""`mlplatform`: offline plan, placement and policy check for the stacks of this project.

Exit codes: 0 success, 1 the command ran and found a failure (e.g. a mandatory
policy violation), 2 bad input (invalid config, unreadable file, bad arguments).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib import metadata

from mlplatform_core.model.config import ConfigError

from .exit_codes import EXIT_BAD_INPUT, EXIT_OK, exit_codes_help

# name -> command module in mlplatform.commands (HELP, add_arguments, run; DESCRIPTION, when given, is the
# command's --help text). Only the command that runs is imported: `plan` never loads the policy pack.
COMMANDS = {"plan": "plan", "place": "place", "check": "check", "diff": "diff", "manifests": "manifests"}


DISTRIBUTION = "ml-platform-eks"


def version() -> str:
    """The installed package's version, as pip knows it."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or (`only`) of that command, the others listed without their arguments."""
    parser = argparse.ArgumentParser(
        prog="mlplatform", description="Offline tooling for ML-platform EKS stacks.", epilog=exit_codes_help()
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name)
            continue
        command = importlib.import_module(f"{__package__}.commands.{module}")
        p = sub.add_parser(
            name,
            help=command.HELP,
            description=getattr(command, "DESCRIPTION", command.HELP),
            epilog=exit_codes_help(getattr(command, "EXIT_CODES", None)),
        )
        command.add_arguments(p)
        p.set_defaults(handler=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    # Only `mlplatform --help` needs every command's parser (and imports); `--version` and mistakes need none.
    invoked = words[0] if words and words[0] in COMMANDS else (None if {"-h", "--help"} & set(words) else "")
    parser = build_parser(invoked)
    args = parser.parse_args(argv)  # exits 2 on bad arguments, like every argparse tool
    if argv is None:  # the mlplatform process itself: one program run, then exit
        from .engine import run as engine_run

        engine_run.FREEZER.enabled = True
    try:
        return args.handler(args)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as err:
        # The offline engine cannot show this stack as the real engine would (e.g. an unmodelled pulumi-eks
        # release). Looked up only once the engine ran: `place` never imports it (nor the Pulumi SDK).
        engine = sys.modules.get(f"{__package__}.engine")
        if engine is not None and isinstance(err, engine.ModelError):
            print(f"error: offline engine: {err}", file=sys.stderr)
            return EXIT_BAD_INPUT
        raise
    except BrokenPipeError:  # `mlplatform plan dev | head`
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
