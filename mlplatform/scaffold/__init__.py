"""`mlplatform init DIR`: a ready project built on the installed toolkit.

Pulumi.yaml and the few-line __main__.py of the cluster program, the Kubernetes-layer project, a stack file
per environment from the layout defaults, the policy pack (the installed rules) with its config, a CI
workflow (per stack: its cluster, then its Kubernetes layer), .gitignore, a README and requirements.txt
pinning this package so that a CI runner can install it (pinning.py: never a path of this machine; a wheel
is copied into vendor/). Nothing is overwritten: a file that exists stops init before it writes anything, and
a folder inside another Pulumi project is refused unless asked for.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

from mlplatform_core.errors import InputError
from mlplatform_core.schemas import STACK_SCHEMA_FILE, stack_schema_text

from .. import __version__
from ..project import CLUSTER_MAIN, KUBERNETES_DIRECTORY, PROJECT_FILES, layer_main
from ..stack_names import PROJECT_NAME
from .pinning import VENDOR, Pin, choose, installed
from .stack_files import stack_file

ENVIRONMENTS = ("dev", "prod")
# The policy config each new stack starts with (what `pulumi preview --policy-pack-config` reads): dev may
# switch to a public endpoint for the laptop path, so its endpoint rule only advises.
POLICY_CONFIG = {"dev": {"eks-endpoint-private": "advisory"}}
# Where init writes the stack file schema, and the line that points a stack file at it: yaml-language-server
# (VS Code's YAML extension, Neovim, Helix...) reads a `$schema=` path relative to the file it is in.
STACK_SCHEMA = f"schemas/{STACK_SCHEMA_FILE}"
SCHEMA_HINT = f"# yaml-language-server: $schema=../{STACK_SCHEMA}\n"


def project_name(folder: Path) -> str:
    """A Pulumi project name from the folder's name: characters Pulumi refuses become '-'."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", folder.resolve().name).strip("-.")[:100]
    if not name:
        raise InputError(f"cannot make a Pulumi project name from the folder name {folder.name!r}: pass --name NAME")
    return name


def requirement() -> tuple[str, str]:
    """How requirements.txt pins this installation of the toolkit, and the comment on where the pin came from."""
    pin = installed()
    return pin.line, pin.note


def _file(name: str) -> str:
    return resources.files(__package__).joinpath("files", name).read_text(encoding="utf-8")


def runner_variable(stack: str) -> str:
    """The repository variable that says a stack's in-VPC runner is up (GitHub: letters, digits, '_')."""
    return "MLP_VPC_RUNNER_" + re.sub(r"[^A-Za-z0-9]", "_", stack).upper()


def _deploy_gate(stack: str, earlier: list[str]) -> tuple[str, str]:
    """`needs` and `if` of a stack's cluster deploy: after the offline check, and after the stacks before it
    (dev before prod): their cluster deployed, their Kubernetes layer deployed or skipped (no runner yet)."""
    on_main = "github.event_name == 'push' && github.ref == 'refs/heads/main'"
    if not earlier:
        return "offline", on_main
    needs = ["offline"] + [job for s in earlier for job in (f"deploy-{s}", f"deploy-{s}-kubernetes")]
    results = ["needs.offline.result == 'success'"]
    for s in earlier:
        results.append(f"needs.deploy-{s}.result == 'success'")
        results.append(f'contains(fromJSON(\'["success", "skipped"]\'), needs.deploy-{s}-kubernetes.result)')
    # !cancelled(): a skipped Kubernetes layer (its runner not up yet) must not skip the later stacks.
    return f"[{', '.join(needs)}]", "${{ !cancelled() && " + " && ".join([on_main, *results]) + " }}"


@dataclass(frozen=True)
class Scaffold:
    name: str
    region: str
    pin: Pin
    version: str

    def fill(self, text: str) -> str:
        for key, value in (
            ("@@PROJECT@@", self.name),
            ("@@VERSION@@", self.version),
            ("@@REGION@@", self.region),
            ("@@STACKS@@", ", ".join(ENVIRONMENTS)),
            ("@@RUNNER_VARIABLES@@", ", ".join(runner_variable(s) for s in ENVIRONMENTS)),
        ):
            text = text.replace(key, value)
        return text

    def workflow(self) -> str:
        """The CI workflow: the shared jobs, then each stack's own jobs in order (dev, prod)."""
        jobs = []
        for i, stack in enumerate(ENVIRONMENTS):
            needs, condition = _deploy_gate(stack, list(ENVIRONMENTS[:i]))
            text = _file("workflows/stack-jobs.yml")
            for key, value in (
                ("@@DEPLOY_NEEDS@@", needs),
                ("@@DEPLOY_IF@@", condition),
                ("@@RUNNER@@", runner_variable(stack)),
                ("@@STACK@@", stack),
            ):
                text = text.replace(key, value)
            jobs.append(text)
        return self.fill(_file("workflows/infra.yml").replace("@@STACK_JOBS@@", "\n".join(jobs)))

    def requirements(self, depth: int, head: str = "") -> str:
        return f"{head}# {self.pin.note}\n{self.pin.line_from(depth)}\n"

    def files(self) -> dict[str, str]:
        """Every text file of the project, by path relative to its folder."""
        out = {
            "Pulumi.yaml": self.fill(_file("Pulumi.yaml")),
            "__main__.py": CLUSTER_MAIN,
            "requirements.txt": self.requirements(0, "# Install from this folder: pip install -r requirements.txt\n"),
            ".gitignore": _file("gitignore"),
            "README.md": self.fill(_file("README.md")),
            f"{KUBERNETES_DIRECTORY}/Pulumi.yaml": self.fill(_file("kubernetes-layer.Pulumi.yaml")),
            f"{KUBERNETES_DIRECTORY}/__main__.py": layer_main(self.name),
            f"{KUBERNETES_DIRECTORY}/requirements.txt": self.requirements(
                1, _file("kubernetes-layer.requirements.txt")
            ),
            "policies/PulumiPolicy.yaml": self.fill(_file("policies/PulumiPolicy.yaml")),
            "policies/__main__.py": _file("policies/__main__.py.tmpl"),
            "policies/requirements.txt": self.requirements(1, _file("policies/requirements.txt")),
            ".github/workflows/infra.yml": self.workflow(),
        }
        # The stack files' schema, for editors: each stack file names it on its first line (SCHEMA_HINT).
        out[STACK_SCHEMA] = stack_schema_text()
        for env in ENVIRONMENTS:
            out[f"stacks/Pulumi.{env}.yaml"] = SCHEMA_HINT + stack_file(env, self.name, self.region, self.version)
            if env in POLICY_CONFIG:
                out[f"policies/config/{env}.json"] = json.dumps(POLICY_CONFIG[env], indent=2) + "\n"
        return out

    def copies(self) -> dict[str, Path]:
        """Files copied as they are (the vendored wheel), by path relative to the project folder."""
        return {f"{VENDOR}/{self.pin.wheel.name}": self.pin.wheel} if self.pin.wheel else {}


def enclosing_project(folder: Path) -> Path | None:
    """The Pulumi.yaml of a project that `folder` is in (or is), as the Pulumi CLI finds it: upward."""
    start = Path(os.path.abspath(folder))
    return next((f for d in (start, *start.parents) for n in PROJECT_FILES if (f := d / n).is_file()), None)


def _project_name_of(file: Path) -> str:
    try:
        name = yaml.safe_load(file.read_text(encoding="utf-8")).get("name")
    except (OSError, UnicodeDecodeError, yaml.YAMLError, AttributeError):
        name = None
    return f"the Pulumi project {name!r}" if isinstance(name, str) else "a Pulumi project"


def write_project(
    folder: Path,
    name: str | None,
    region: str,
    pin: str | None = None,
    *,
    wheel: str | None = None,
    allow_nested: bool = False,
) -> tuple[list[Path], Pin]:
    """Write a new project into `folder` (created if missing); InputError before anything is written when a
    file exists, the folder is inside another project (unless `allow_nested`) or a value is invalid.
    Returns the files written and how requirements.txt pins the toolkit."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder} exists and is not a folder")
    if not allow_nested and (found := enclosing_project(folder)):
        where = "holds" if found.parent == Path(os.path.abspath(folder)) else "is inside"
        raise InputError(
            f"{folder} {where} {_project_name_of(found)} ({found}): a project written there would nest in it "
            "(the Pulumi CLI and mlplatform take the nearest Pulumi.yaml, so its commands would change project "
            "by folder). Choose a folder outside it, or pass --allow-nested to write it there anyway"
        )
    name = name if name is not None else project_name(folder)
    if not PROJECT_NAME.fullmatch(name):
        raise InputError(f"--name {name!r} is not a Pulumi project name (1 to 100 letters, digits, '-', '_' or '.')")
    from mlplatform_core.model import regions

    if problem := regions.region_problem(region):
        raise InputError(f"--region {region!r}: {problem}")
    chosen = choose(pin, wheel)
    scaffold = Scaffold(name, region, chosen, __version__)
    files = scaffold.files()
    copies = scaffold.copies()
    existing = sorted(p for p in [*files, *copies] if (folder / p).exists())
    if existing:
        raise InputError(
            f"{folder} already has {', '.join(existing)}: init writes a new project and never overwrites a file "
            "(choose an empty or new folder)"
        )
    written: list[Path] = []
    total = len(files) + len(copies)
    for rel, content in [*files.items(), *copies.items()]:
        path = folder / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                shutil.copyfile(content, path)
            else:
                path.write_text(content, encoding="utf-8")
        except OSError as err:  # a folder it may not write (permissions, read-only, /proc): bad input, not a bug
            done = f"; it wrote {len(written)} of {total} files before" if written else ""
            raise InputError(f"cannot write {err.filename or path}: {err.strerror or err}{done}") from None
        written.append(path)
    return written, chosen
