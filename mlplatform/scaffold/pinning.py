"""How a new project's requirements.txt names the toolkit, so that it installs on a clean CI runner.

ml-platform-eks is not on PyPI. A project pins it one of three ways, never by a path of the machine that ran
`init` (a CI runner has no /tmp/.../ml_platform_eks-...whl):

- a wheel copied into the project (vendor/) and named by a relative path: by default when the toolkit was
  installed from a wheel file, or with `--wheel FILE`;
- a requirement the team gives with `--requirement` (a version from its own index, a VCS URL);
- else what the install record says: a VCS URL with its commit, an archive URL, or the version (an index).

pip resolves a relative path in a requirements file against the working directory, not the file
(pip/_internal/req/constructors.py, _get_url_from_path: os.path.abspath(name)), and `pulumi install` runs pip
in the program's or the pack's own folder (pulumi/pulumi sdk/python/toolchain/pip.go): so each requirements
file names the wheel relative to its own folder, and is installed from there.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from mlplatform_core.errors import InputError

from .. import __version__

DISTRIBUTION = "ml-platform-eks"
WHEEL_PREFIX = "ml_platform_eks-"  # a wheel's file name starts with the normalized distribution name
VENDOR = "vendor"
NOT_ON_PYPI = "ml-platform-eks is not on PyPI"


@dataclass(frozen=True)
class Pin:
    line: str  # the requirement line of the project's requirements.txt (its root folder)
    note: str  # the comment above it: where the pin came from
    wheel: Path | None = None  # a wheel init copies into vendor/ (the line names it relatively)
    warning: str | None = None  # what CI needs before the line installs, said by init

    def line_from(self, depth: int) -> str:
        """The line in a requirements file `depth` folders below the project root (installed from there)."""
        editable, spec = ("-e ", self.line[3:]) if self.line.startswith("-e ") else ("", self.line)
        if depth and is_relative_path(spec):
            spec = posixpath.normpath(posixpath.join(*[".."] * depth, spec))
        return editable + spec


def is_relative_path(spec: str) -> bool:
    """A requirement that pip reads as a path (a wheel file or a folder), relative: ./vendor/x.whl, ../pkg."""
    return spec.startswith(("./", "../")) or ("/" in spec and "://" not in spec and "@" not in spec)


def _machine_path(spec: str) -> str | None:
    """The path of this machine a requirement names (an absolute path, a file: URL), else None."""
    spec = spec.removeprefix("-e ").strip()
    url = spec.split("@", 1)[1].strip() if " @ " in spec or spec.startswith(f"{DISTRIBUTION}@") else spec
    if url.startswith("file:"):
        return unquote(urlparse(url).path) or url
    if url.startswith(("/", "~")) or (len(url) > 2 and url[1] == ":" and url[2] in "\\/"):
        return url
    return None


def given(spec: str) -> Pin:
    """`--requirement SPEC`, written as given unless it names a path of this machine (bad input)."""
    spec = spec.strip()
    if not spec or "\n" in spec:
        raise InputError(f"--requirement {spec!r}: give one requirement line, e.g. {DISTRIBUTION}==1.2.3")
    if path := _machine_path(spec):
        raise InputError(
            f"--requirement {spec!r} names {path} on this machine, which a CI runner does not have: pass "
            f"--wheel {path} to copy the wheel into the project, or a requirement any machine can install "
            f"({DISTRIBUTION}==X.Y.Z from your team's index, or {DISTRIBUTION} @ git+https://...@vX.Y.Z)"
        )
    return Pin(spec, "given with --requirement")


def vendored(wheel: str | Path, why: str) -> Pin:
    """A wheel file copied into vendor/ and named relatively (InputError when it is not a toolkit wheel)."""
    path = Path(wheel)
    if not path.name.startswith(WHEEL_PREFIX) or path.suffix != ".whl":
        raise InputError(f"--wheel {str(wheel)!r} is not a wheel of {DISTRIBUTION} ({WHEEL_PREFIX}<version>-*.whl)")
    if not path.is_file():
        raise InputError(f"--wheel {str(wheel)!r}: no such file")
    note = f"{why}, copied into {VENDOR}/ ({NOT_ON_PYPI}); commit it with the project"
    return Pin(f"./{VENDOR}/{path.name}", note, wheel=path)


def installed() -> Pin:
    """The pin of this installation, from its PEP 610 record (direct_url.json)."""
    # The version of the code that runs (an editable install's record keeps the version it was installed at).
    version = __version__
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return Pin(
            f"{DISTRIBUTION}=={version}",
            "the toolkit (not installed here: pin the version you use)",
            warning=_index_needed(version),
        )
    text = dist.read_text("direct_url.json")
    info = json.loads(text) if text else {}
    url = info.get("url", "")
    if url.startswith("file://"):
        path = Path(unquote(urlparse(url).path))
        if path.suffix == ".whl" and path.is_file():
            return vendored(path, f"{DISTRIBUTION} {version}, the wheel this toolkit was installed from")
        # Named without its folder: the comment lands in the project, which never names this machine's paths.
        if info.get("dir_info", {}).get("editable"):
            source = "an editable folder"
        elif path.suffix == ".whl":
            source = f"the wheel {path.name}, no longer where it was installed from"
        else:
            source = f"the folder {path.name}"
        return Pin(
            f"{DISTRIBUTION}=={version}",
            f"{DISTRIBUTION} {version}, installed here from {source}: serve this version from your team's index",
            warning=_index_needed(version, f"this toolkit was installed from {source}"),
        )
    if "vcs_info" in info:
        commit = info["vcs_info"].get("commit_id", "")
        vcs = info["vcs_info"].get("vcs", "git")
        return Pin(f"{DISTRIBUTION} @ {vcs}+{url}@{commit}", f"{DISTRIBUTION} {version}, from its repository")
    if url:
        return Pin(f"{DISTRIBUTION} @ {url}", f"{DISTRIBUTION} {version}")
    return Pin(
        f"{DISTRIBUTION}=={version}",
        f"{DISTRIBUTION} {version} from the package index it was installed from ({NOT_ON_PYPI}: CI needs that "
        "index, e.g. PIP_EXTRA_INDEX_URL)",
    )


def _index_needed(version: str, why: str = "the toolkit is not installed here") -> str:
    return (
        f"requirements.txt pins {DISTRIBUTION}=={version}, but {why} and {NOT_ON_PYPI}: CI installs it only from "
        f"an index your team runs. Or run init again with --wheel FILE (the wheel, copied into {VENDOR}/) or "
        f"--requirement '{DISTRIBUTION} @ git+https://<your git host>/<org>/ml-platform-eks@v{version}'"
    )


def choose(requirement: str | None, wheel: str | None) -> Pin:
    """The pin from the options (at most one of them), else from this installation."""
    if requirement is not None and wheel is not None:
        raise InputError("--requirement and --wheel both say how to pin the toolkit: give one of them")
    if requirement is not None:
        return given(requirement)
    if wheel is not None:
        return vendored(wheel, "the wheel given with --wheel")
    return installed()
