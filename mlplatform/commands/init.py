"""`mlplatform init DIR`: write a ready project built on the installed toolkit."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..exit_codes import EXIT_BAD_INPUT, EXIT_OK

HELP = "write a new project: Pulumi programs, dev and prod stacks, the policy pack, a CI workflow"
DESCRIPTION = (
    HELP + ". DIR is created if missing; init never overwrites a file, and refuses a DIR inside another Pulumi "
    "project unless --allow-nested. requirements.txt pins the toolkit so that CI installs it: the wheel this "
    "toolkit was installed from, copied into vendor/ (or --wheel FILE), a requirement you give (--requirement), "
    "else the version from your index. Then: cd DIR && mlplatform plan dev (offline), mlplatform check --all, "
    "and `pulumi up` to deploy (README.md in DIR)."
)
EXIT_CODES = {
    EXIT_OK: "the project was written",
    EXIT_BAD_INPUT: "bad input (a file that exists, a folder inside another Pulumi project, a folder it cannot "
    "write, an invalid name, region or requirement, bad arguments)",
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
        help="how requirements.txt pins the toolkit, as any machine installs it: a version from your team's index "
        "(ml-platform-eks==X.Y.Z) or a VCS URL (ml-platform-eks @ git+https://...@vX.Y.Z); a path or file: URL "
        "of this machine is refused (default: this installation: the wheel it came from, copied into vendor/; "
        "its repository and commit; or its version)",
    )
    parser.add_argument(
        "--wheel",
        metavar="FILE",
        help="copy this ml_platform_eks-*.whl into vendor/ and pin it by that relative path (commit it)",
    )
    parser.add_argument(
        "--allow-nested",
        action="store_true",
        help="write the project even inside another Pulumi project (a Pulumi.yaml in DIR's parents)",
    )


def run(args: argparse.Namespace) -> int:
    from ..scaffold import write_project

    folder = Path(args.directory)
    written, pin = write_project(
        folder, args.name, args.region, args.requirement, wheel=args.wheel, allow_nested=args.allow_nested
    )
    print(f"wrote {len(written)} files into {folder}:")
    for path in sorted(written, key=lambda p: (len(p.relative_to(folder).parts), p.as_posix())):
        print(f"  {path.relative_to(folder).as_posix()}")
    print(f"\nrequirements.txt pins the toolkit: {pin.line}\n  ({pin.note})")
    print(
        f"\nnext:\n  cd {shlex.quote(str(folder))}\n"  # a folder name with a space still pastes into a shell
        "  mlplatform plan dev        # offline: what the dev stack builds\n"
        "  mlplatform check --all     # the policy pack and the placement proof on every stack\n"
        "  pulumi stack init dev      # once, after `pulumi login` (Pulumi Cloud, --local or s3://...)\n"
        "  pulumi up --stack dev      # deploy (README.md: the two steps, and from where)"
    )
    if pin.warning:  # after the list, where it is read
        sys.stdout.flush()
        print(f"note: {pin.warning}", file=sys.stderr)
    return EXIT_OK
