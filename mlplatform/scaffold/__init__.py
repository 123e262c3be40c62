"""`mlplatform init DIR`: a ready project built on the installed toolkit.

Pulumi.yaml and the few-line __main__.py of the cluster program, the Kubernetes-layer project, a stack file
per environment from the layout defaults, the policy pack (the installed rules) with its config, a CI
workflow that posts the plan on pull requests, .gitignore, a README and requirements.txt pinning this
package. Nothing is overwritten: a file that exists stops init before it writes anything.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path
from urllib.parse import unquote, urlparse

from mlplatform_core.errors import InputError

from ..project import CLUSTER_MAIN, KUBERNETES_DIRECTORY, layer_main
from ..stack_names import PROJECT_NAME
from .stack_files import stack_file

DISTRIBUTION = "ml-platform-eks"
ENVIRONMENTS = ("dev", "prod")
# The policy config each new stack starts with (what `pulumi preview --policy-pack-config` reads): dev may
# switch to a public endpoint for the laptop path, so its endpoint rule only advises.
POLICY_CONFIG = {"dev": {"eks-endpoint-private": "advisory"}}


def project_name(folder: Path) -> str:
    """A Pulumi project name from the folder's name: characters Pulumi refuses become '-'."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", folder.resolve().name).strip("-.")[:100]
    if not name:
        raise InputError(f"cannot make a Pulumi project name from the folder name {folder.name!r}: pass --name NAME")
    return name


def requirement() -> tuple[str, str]:
    """How requirements.txt pins this package, and a comment on where the pin came from.

    From the install's PEP 610 record (direct_url.json): the wheel file or folder it was installed from,
    else (an index install) the version.
    """
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return DISTRIBUTION, "the toolkit (not installed here: pin the version you use)"
    version = dist.version
    text = dist.read_text("direct_url.json")
    info = json.loads(text) if text else {}
    url = info.get("url", "")
    if url.startswith("file://"):
        path = unquote(urlparse(url).path)
        if info.get("dir_info", {}).get("editable"):
            return f"-e {path}", f"ml-platform-eks {version}, installed editable from that folder"
        note = f"ml-platform-eks {version} from a local {'wheel' if path.endswith('.whl') else 'folder'}"
        return f"{DISTRIBUTION} @ {url}", f"{note}; once it is on your index, pin {DISTRIBUTION}=={version}"
    if "vcs_info" in info:
        commit = info["vcs_info"].get("commit_id", "")
        return f"{DISTRIBUTION} @ {info['vcs_info'].get('vcs', 'git')}+{url}@{commit}", f"ml-platform-eks {version}"
    if url:
        return f"{DISTRIBUTION} @ {url}", f"ml-platform-eks {version}"
    return f"{DISTRIBUTION}=={version}", f"ml-platform-eks {version}"


def _file(name: str) -> str:
    return resources.files(__package__).joinpath("files", name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Scaffold:
    name: str
    region: str
    pin: str  # the requirement line
    pin_note: str
    version: str

    def fill(self, text: str) -> str:
        for key, value in (
            ("@@PROJECT@@", self.name),
            ("@@VERSION@@", self.version),
            ("@@REGION@@", self.region),
            ("@@STACKS@@", ", ".join(ENVIRONMENTS)),
        ):
            text = text.replace(key, value)
        return text

    def files(self) -> dict[str, str]:
        """Every file of the project, by path relative to its folder."""
        out = {
            "Pulumi.yaml": self.fill(_file("Pulumi.yaml")),
            "__main__.py": CLUSTER_MAIN,
            "requirements.txt": f"# {self.pin_note}\n{self.pin}\n",
            ".gitignore": _file("gitignore"),
            "README.md": self.fill(_file("README.md")),
            f"{KUBERNETES_DIRECTORY}/Pulumi.yaml": self.fill(_file("kubernetes-layer.Pulumi.yaml")),
            f"{KUBERNETES_DIRECTORY}/__main__.py": layer_main(self.name),
            f"{KUBERNETES_DIRECTORY}/requirements.txt": _file("kubernetes-layer.requirements.txt"),
            "policies/PulumiPolicy.yaml": self.fill(_file("policies/PulumiPolicy.yaml")),
            "policies/__main__.py": _file("policies/__main__.py.tmpl"),
            "policies/requirements.txt": _file("policies/requirements.txt"),
            ".github/workflows/infra.yml": self.fill(_file("workflows/infra.yml")),
        }
        for env in ENVIRONMENTS:
            out[f"stacks/Pulumi.{env}.yaml"] = stack_file(env, self.name, self.region, self.version)
            if env in POLICY_CONFIG:
                out[f"policies/config/{env}.json"] = json.dumps(POLICY_CONFIG[env], indent=2) + "\n"
        return out


def write_project(folder: Path, name: str | None, region: str, pin: str | None = None) -> list[Path]:
    """Write a new project into `folder` (created if missing); InputError before anything is written when a
    file exists or a value is invalid. Returns the files written."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder} exists and is not a folder")
    name = name if name is not None else project_name(folder)
    if not PROJECT_NAME.fullmatch(name):
        raise InputError(f"--name {name!r} is not a Pulumi project name (1 to 100 letters, digits, '-', '_' or '.')")
    from mlplatform_core.model import regions

    if problem := regions.region_problem(region):
        raise InputError(f"--region {region!r}: {problem}")
    default_pin, note = requirement()
    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        version = "unknown"
    scaffold = Scaffold(name, region, pin or default_pin, "given with --requirement" if pin else note, version)
    files = scaffold.files()
    existing = sorted(p for p in files if (folder / p).exists())
    if existing:
        raise InputError(
            f"{folder} already has {', '.join(existing)}: init writes a new project and never overwrites a file "
            "(choose an empty or new folder)"
        )
    written = []
    for rel, text in files.items():
        path = folder / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as err:  # a folder it may not write (permissions, read-only, /proc): bad input, not a bug
            done = f"; it wrote {len(written)} of {len(files)} files before" if written else ""
            raise InputError(f"cannot write {err.filename or path}: {err.strerror or err}{done}") from None
        written.append(path)
    return written
