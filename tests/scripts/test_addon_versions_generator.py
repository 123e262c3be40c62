"""scripts/generate_addon_versions.py reads release tags, Chart.yaml files and AMI release notes as upstream does.

The repositories here are tiny git repositories made in the test, in the upstream layouts (no upstream data).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.scripts.test_generators import load

gen = load("generate_addon_versions")


def repo(path: Path, releases: list[tuple[str, dict[str, str]]]) -> Path:
    """A git repository with one commit per (tag, {file: text}) and that tag."""
    path.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True)

    git("init", "-q")
    for tag, files in releases:
        for name, text in files.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_text(text)
        git("add", "-A")
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", tag, "--allow-empty")
        git("tag", tag)
    return path


def scaler_chart(version: str, app: str, moved: bool) -> dict[str, str]:
    base = "cluster-autoscaler/charts/cluster-autoscaler" if moved else "charts/cluster-autoscaler"
    return {
        f"{base}/Chart.yaml": f"name: cluster-autoscaler\nversion: {version}\nappVersion: {app}\n",
        f"{base}/values.yaml": "image:\n  repository: registry.k8s.io/autoscaling/cluster-autoscaler\n",
    }


def plugin_chart(version: str) -> dict[str, str]:
    base = "deployments/helm/nvidia-device-plugin"
    return {
        f"{base}/Chart.yaml": f'version: "{version}"\nappVersion: "{version}"\nkubeVersion: ">= 1.10.0-0"\n',
        f"{base}/values.yaml": "image:\n  repository: nvcr.io/nvidia/k8s-device-plugin\n",
    }


CHANGELOG = """# AMI Release v20260714
<td>amazon-eks-node-al2023-x86_64-standard-1.36-v20260714</td>
<td>amazon-eks-node-al2023-x86_64-nvidia-1.36-v20260714</td>
<td>amazon-eks-node-al2023-arm64-standard-1.36-v20260714</td>
<td>amazon-eks-node-al2023-x86_64-standard-1.35-v20260714</td>
# AMI Release v20260701
<td>amazon-eks-node-al2023-x86_64-standard-1.35-v20260701</td>
<td>amazon-eks-node-al2023-x86_64-nvidia-1.35-v20260701</td>
<td>amazon-eks-node-al2023-arm64-standard-1.35-v20260701</td>
"""


@pytest.fixture
def upstream(tmp_path: Path) -> list[str]:
    scaler = repo(
        tmp_path / "autoscaler",
        [
            ("cluster-autoscaler-chart-9.50.0", scaler_chart("9.50.0", "1.33.0", moved=False)),
            ("cluster-autoscaler-1.35.0", {}),
            ("cluster-autoscaler-chart-9.54.0", scaler_chart("9.54.0", "1.35.0", moved=True)),
            ("cluster-autoscaler-1.35.10", {}),
            ("cluster-autoscaler-1.35.2", {}),
            ("cluster-autoscaler-chart-9.55.0", scaler_chart("9.55.0", "1.35.0", moved=True)),
            ("cluster-autoscaler-1.36.0-beta.1", {}),
            ("cluster-autoscaler-1.36.0", {}),
        ],
    )
    plugin = repo(tmp_path / "plugin", [("v0.17.0", plugin_chart("0.17.0")), ("v0.18.0", plugin_chart("0.18.0"))])
    amis = repo(tmp_path / "amis", [("v20260714", {"CHANGELOG.md": CHANGELOG})])
    karpenter = repo(
        tmp_path / "karpenter",
        [("v1.14.1", {"charts/karpenter/values.yaml": "controller:\n  image:\n    repository: public.ecr.aws/k/c\n"})],
    )
    calendar = tmp_path / "eks.json"
    row = {"end_of_extended_support": "2028-01-01"}
    ended = {"end_of_extended_support": "2026-01-01"}
    calendar.write_text(json.dumps({"versions": {"1.33": ended, "1.35": row, "1.36": row, "1.37": row}}))
    snap = tmp_path / "karpenter.json"
    snap.write_text(
        json.dumps(
            {
                "release": "1.14.1",
                "kubernetes": {"min": "1.26", "max": "1.36"},
                "charts": {"karpenter": "oci://r/karpenter", "karpenter-crd": "oci://r/karpenter-crd"},
            }
        )
    )
    args = ["--autoscaler", str(scaler), "--device-plugin", str(plugin), "--eks-ami", str(amis)]
    args += ["--karpenter-repo", str(karpenter), "--eks-ami-ref", "HEAD", "--calendar", str(calendar)]
    return [*args, "--karpenter", str(snap), "--on", "2026-11-26", "-o", str(tmp_path / "out.json")]


def test_each_minor_gets_its_own_line_or_the_newest_older_one(upstream, tmp_path):
    assert gen.main(upstream) == 0
    minors = json.loads((tmp_path / "out.json").read_text())["minors"]
    # 1.33's extended support ended: not covered. 1.37 has no autoscaler release, Karpenter stops at 1.36.
    assert set(minors) == {"1.35", "1.36", "1.37"}
    assert minors["1.35"]["cluster-autoscaler"] == {
        "chart": "9.55.0",  # the newest chart of the 1.35 line
        "chartLine": "1.35",
        "sameLine": True,
        "firstOfLine": "9.54.0",
        "image": "v1.35.10",  # numbers, not strings: .10 beats .2; betas are no releases
    }
    # No chart of the 1.36 line yet: the newest chart of an older line, marked, with the 1.36 image.
    assert minors["1.36"]["cluster-autoscaler"] == {
        "chart": "9.55.0",
        "chartLine": "1.35",
        "sameLine": False,
        "firstOfLine": "9.54.0",
        "image": "v1.36.0",
    }
    assert "cluster-autoscaler" not in minors["1.37"] and "karpenter" not in minors["1.37"]
    assert minors["1.36"]["nvidia-device-plugin"] == {"chart": "0.18.0", "image": "v0.18.0"}
    assert minors["1.36"]["karpenter"] == {"chart": "1.14.1", "image": "1.14.1"}
    # An AMI release counts for a minor only when it lists every AL2023 variant Karpenter may pick.
    assert minors["1.35"]["al2023Ami"] == "v20260701" and minors["1.36"]["al2023Ami"] == "v20260714"
    assert "al2023Ami" not in minors["1.37"]


def test_the_table_names_where_every_chart_and_image_comes_from(upstream, tmp_path):
    gen.main(upstream)
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["charts"]["cluster-autoscaler"]["image"] == "registry.k8s.io/autoscaling/cluster-autoscaler"
    assert doc["charts"]["karpenter"]["image"] == "public.ecr.aws/k/c"
    assert {s["role"] for s in doc["source"]} >= {"autoscaler-charts", "device-plugin-charts", "eks-ami-changelog"}


@pytest.mark.parametrize(
    "constraint, minor, admits",
    [(">= 1.10.0-0", "1.36", True), (">=1.20.0, <1.35.0", "1.35", False), ("<1.20 || >=1.30", "1.31", True)],
)
def test_kube_version_constraints_read_as_helm_does(constraint, minor, admits):
    assert gen.constraint_admits(constraint, minor) is admits
