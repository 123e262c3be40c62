"""`mlplatform`: offline plan, placement and policy check of the stacks of an ml-platform-eks project.

Exit codes: 0 success, 1 the command ran and found a failure (e.g. a mandatory policy violation),
2 bad input (invalid config, unreadable file, bad arguments, no project), 3 an internal error (a bug:
one line on stderr, the traceback in a file). No exception leaves `main` as exit 1.

Start-up stays light: parsing arguments, --help and --version import no Pulumi SDK and no settings model;
each command imports what it needs when it runs (bench/run measures it).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from mlplatform_core.errors import InputError

from .exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    exit_codes_help,
)

# name -> command module in mlplatform.commands (HELP, add_arguments, run; DESCRIPTION, when given, is the
# command's --help text). Only the command that runs is imported; its heavy imports wait until it runs.
COMMANDS = {
    "init": "init",
    "plan": "plan",
    "place": "place",
    "check": "check",
    "diff": "diff",
    "manifests": "manifests",
    "schema": "schema",
}


def version() -> str:
    """The package's version (pyproject.toml's version is this attribute, so pip reports the same)."""
    from . import __version__

    return __version__


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or (`only`) of that command, the others listed without their arguments."""
    parser = argparse.ArgumentParser(
        prog="mlplatform",
        description="Offline plan, placement and policy check of ml-platform-eks stacks (no cloud account, no "
        "Pulumi CLI). Commands work in the project of the working directory (the nearest folder with a "
        "Pulumi.yaml) or --project-dir.",
        epilog=exit_codes_help(),
    )
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        help="show the installed version and the plan document's schema version, and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        command = importlib.import_module(f"{__package__}.commands.{module}")
        if only is not None and name != only:
            sub.add_parser(name, help=command.HELP)
            continue
        p = sub.add_parser(
            name,
            help=command.HELP,
            description=getattr(command, "DESCRIPTION", command.HELP),
            epilog=exit_codes_help(getattr(command, "EXIT_CODES", None)),
        )
        command.add_arguments(p)
        p.set_defaults(handler=command.run)
    return parser


def version_line() -> str:
    """`mlplatform --version`: the release (docs/versioning.md) and the schema version of the documents it writes
    and reads (a plan saved by another schema version is no BEFORE for `diff`/`check --against`)."""
    from .documents import SCHEMA_VERSION

    return f"mlplatform {version()} (plan document schema {SCHEMA_VERSION})"


class _Version(argparse.Action):
    """--version, looked up only when given."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_line())
        parser.exit()


def _quiet_stdout() -> None:
    """After a closed pipe: send what is still buffered nowhere, so that exiting prints no second error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (tests capture it)
        pass


def internal_error(err: BaseException) -> int:
    """One line that says it is a bug, the traceback in a file whose path it prints; exit 3."""
    import datetime
    import tempfile
    import traceback

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    report = f"mlplatform {version()}, Python {sys.version.split()[0]}\nargv: {sys.argv}\n\n{text}"
    try:
        fd, path = tempfile.mkstemp(prefix=f"mlplatform-crash-{stamp}-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(report)
        where = f"the traceback is in {path}"
    except OSError:
        print(report, file=sys.stderr)
        where = "the traceback is above"
    summary = " ".join(f"{type(err).__name__}: {err}".split())[:200]
    print(
        f"mlplatform: internal error (a bug in mlplatform {version()}, not in your input): {summary}; {where}; "
        "please report it with that file",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    # Only `mlplatform --help` needs every command's arguments; a command's own --help needs its arguments only.
    invoked = next((w for w in words if not w.startswith("-")), None)
    parser = build_parser(invoked if invoked in COMMANDS else None)
    args = parser.parse_args(argv)  # exits 2 on bad arguments, like every argparse tool
    args.standalone = argv is None  # the mlplatform process itself: it runs its programs, then exits
    try:
        code = args.handler(args)
        sys.stdout.flush()  # a reader that went away shows here, inside the handlers below, not at exit
        return code
    except BrokenPipeError:  # `mlplatform plan dev --json | head -1`
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except InputError as err:  # a setting, a file, a project: the message names it
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as err:  # the outer edge: anything else is a bug, never exit 1
        return internal_error(err)


if __name__ == "__main__":
    sys.exit(main())
