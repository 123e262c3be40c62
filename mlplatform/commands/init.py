"""`mlplatform init DIR`: write a ready project built on the installed toolkit."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from ..exit_codes import EXIT_BAD_INPUT, EXIT_OK

HELP = "write a new project: Pulumi programs, dev and prod stacks, the policy pack, a CI workflow"
DESCRIPTION = (
    HELP + ". DIR is created if missing; init never overwrites a file. Then: cd DIR && mlplatform plan dev "
    "(offline), mlplatform check --all, and `pulumi up` to deploy (README.md in DIR)."
)
EXIT_CODES = {
    EXIT_OK: "the project was written",
    EXIT_BAD_INPUT: "bad input (a file that exists, a folder it cannot write, an invalid name or region, bad "
    "arguments)",
}
DEFAULT_REGION = "us-east-1"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", help="the project folder (new, or empty of the files init writes)")
    parser.add_argument(
        "--name", help="the Pulumi project name (default: the folder's name); URNs and StackReferences use it"
    )
    parser.add_argument(
        "--region", default=DEFAULT_REGION, help=f"aws:region of the dev and prod stacks (default: {DEFAULT_REGION})"
    )
    parser.add_argument(
        "--requirement",
        metavar="SPEC",
        help="how requirements.txt pins the toolkit (default: this installation: its version, or the wheel or "
        "folder it was installed from)",
    )


def run(args: argparse.Namespace) -> int:
    from ..scaffold import write_project

    folder = Path(args.directory)
    written = write_project(folder, args.name, args.region, args.requirement)
    print(f"wrote {len(written)} files into {folder}:")
    for path in sorted(written, key=lambda p: (len(p.relative_to(folder).parts), p.as_posix())):
        print(f"  {path.relative_to(folder).as_posix()}")
    print(
        f"\nnext:\n  cd {shlex.quote(str(folder))}\n"  # a folder name with a space still pastes into a shell
        "  mlplatform plan dev        # offline: what the dev stack builds\n"
        "  mlplatform check --all     # the policy pack and the placement proof on every stack\n"
        "  pulumi stack init dev      # once, after `pulumi login` (Pulumi Cloud, --local or s3://...)\n"
        "  pulumi up --stack dev      # deploy (README.md: the two steps, and from where)"
    )
    return EXIT_OK
