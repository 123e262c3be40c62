"""Kueue's chart as its release publishes it (kubernetes-sigs/kueue): which release tag and minors the add-on
versions pin (scripts/generators/generate_addon_versions.py), and the release flow scripts/generators/render_charts.py
replays.

- The release tags vX.Y.Z with charts/kueue, up to the pin's newest; the newest one's README.md states the oldest
  minor it supports ("Requires Kubernetes 1.N or newer"); Kueue's Chart.yaml has no kubeVersion.
- hack/helm-chart-package.sh publishes the chart as oci://registry.k8s.io/kueue/charts/kueue with version = the
  tag without the "v", and sets the manager's image to registry.k8s.io/kueue/kueue:<tag>, pulled IfNotPresent
  (git holds the staging image, tag release-0.N, pulled Always).
"""

from __future__ import annotations

import re
from pathlib import Path

import upstream
import yaml

KUEUE_CHART = "charts/kueue"
KUEUE_REQUIRES = re.compile(r"Requires Kubernetes (1\.\d+) or newer")
# Where Kueue's release publishes the chart and the image (hack/helm-chart-package.sh: k8s_registry, HELM_CHART_REPO).
KUEUE_SOURCE = {"repo": "oci://registry.k8s.io/kueue/charts/kueue", "image": "registry.k8s.io/kueue/kueue"}


def read_kueue(repo: Path, pin: dict) -> dict[str, str]:
    """{release, the oldest minor it supports} of the newest release tag up to the pin's."""
    tags = [
        t
        for t in upstream.git_tags(repo, "v", pin.get("newest"))
        if upstream.git_show(repo, t, f"{KUEUE_CHART}/Chart.yaml")
    ]
    if not tags:
        raise SystemExit("kubernetes-sigs/kueue: no release tag with charts/kueue")
    newest = tags[-1]
    readme = upstream.git_show(repo, newest, "README.md") or ""
    m = KUEUE_REQUIRES.search(readme)
    if m is None:
        raise SystemExit(f"kubernetes-sigs/kueue {newest}: README.md states no 'Requires Kubernetes 1.N or newer'")
    return {"release": newest.removeprefix("v"), "min": m[1]}


def kueue_release_flow(chart: Path, version: str) -> None:
    """What Kueue's hack/helm-chart-package.sh does for a release tag: the manager's image from registry.k8s.io at
    the tag, pulled IfNotPresent (git holds the staging image, tag release-0.N, pulled Always)."""
    values_file = chart / "values.yaml"
    values = yaml.safe_load(values_file.read_text()) or {}
    image = values["controllerManager"]["manager"]["image"]
    image.update(repository=KUEUE_SOURCE["image"], tag=f"v{version}", pullPolicy="IfNotPresent")
    values_file.write_text(yaml.safe_dump(values))
