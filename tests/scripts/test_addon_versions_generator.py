"""scripts/generators/generate_addon_versions.py reads release tags, Chart.yaml files and AMI release notes as upstream
does.

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


def efa_chart(version: str, app: str) -> dict[str, str]:
    base = "stable/aws-efa-k8s-device-plugin"
    image = "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/efa"
    return {
        f"{base}/Chart.yaml": f"name: aws-efa-k8s-device-plugin\nversion: {version}\nappVersion: {app}\n",
        f"{base}/values.yaml": f"image:\n  repository: {image}\n  tag: {app}\n",
    }


def operator_chart(kube: str) -> dict[str, str]:
    base = "deployments/gpu-operator"
    return {
        f"{base}/Chart.yaml": f'name: gpu-operator\nversion: v1.0.0-devel\nkubeVersion: "{kube}"\n',
        f"{base}/values.yaml": "operator:\n  repository: nvcr.io/nvidia\n  image: gpu-operator\n"
        + "".join(f"{k}:\n  repository: nvcr.io/nvidia/{k}\n" for k in ("migManager", "gfd", "validator")),
    }


def dcgm_chart(version: str, image: str) -> dict[str, str]:
    return {
        "deployment/Chart.yaml": f'name: dcgm-exporter\nversion: "{version}"\nkubeVersion: ">= 1.19.0-0"\n',
        "deployment/values.yaml": f"image:\n  repository: nvcr.io/nvidia/k8s/dcgm-exporter\n  tag: {image}\n",
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


def kueue_release(minor: str) -> dict[str, str]:
    return {
        "charts/kueue/Chart.yaml": "name: kueue\nversion: 0.0.0\n",
        "README.md": f"Kueue.\n\n**Requires Kubernetes {minor} or newer**.\n",
    }


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
    # Tags as upstream names them: eks-charts tags the repository (the pin's newest tag is read), the GPU operator
    # vYY.M.P, the DCGM exporter <dcgm>-<exporter>; tags after the pins' newest are left out.
    efa = repo(
        tmp_path / "efa",
        [("v0.0.241", efa_chart("v0.5.29", "v0.5.20")), ("v0.0.242", efa_chart("v0.5.30", "v0.5.20"))],
    )
    operator = repo(
        tmp_path / "operator",
        [("v26.3.0", operator_chart(">= 1.16.0-0")), ("v26.7.0", operator_chart(">= 1.30.0-0, < 1.37.0-0"))],
    )
    dcgm = repo(
        tmp_path / "dcgm",
        [
            ("4.5.2-4.8.1", dcgm_chart("4.8.1", "4.5.2-4.8.1-distroless")),
            ("4.5.3-4.8.2", dcgm_chart("4.8.2", "4.5.3-4.8.2-distroless")),
            ("4.6.0-4.9.0", dcgm_chart("4.9.0", "4.6.0-4.9.0-distroless")),
        ],
    )
    chart = "deployments/helm/nvidia-dra-driver-gpu"
    dra = repo(
        tmp_path / "dra",
        [
            (
                "v25.12.0",
                {
                    f"{chart}/Chart.yaml": 'version: "25.12.0"\nappVersion: "25.12.0"\nkubeVersion: ">=1.32.0-0"\n',
                    f"{chart}/values.yaml": "image:\n  repository: nvcr.io/nvidia/k8s-dra-driver-gpu\n",
                },
            )
        ],
    )
    # Kueue: release tags vX.Y.Z with charts/kueue; the README of the newest up to the pin's says the oldest minor.
    kueue = repo(
        tmp_path / "kueue",
        [
            ("v0.19.1", kueue_release("1.29")),
            ("v0.19.2", kueue_release("1.36")),
            ("v0.20.0", kueue_release("1.37")),
        ],
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
    args += ["--efa-charts", str(efa), "--gpu-operator", str(operator), "--dcgm-exporter", str(dcgm)]
    args += ["--dra-driver", str(dra)]
    args += ["--kueue", str(kueue)]
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


def test_the_gpu_charts_follow_their_release_tags_and_kube_version_constraints(upstream, tmp_path):
    gen.main(upstream)
    minors = json.loads((tmp_path / "out.json").read_text())["minors"]
    # eks-charts: the chart at the pinned repository tag; no kubeVersion, so every minor.
    assert {m["aws-efa-k8s-device-plugin"]["chart"] for m in minors.values()} == {"v0.5.30"}
    assert minors["1.35"]["aws-efa-k8s-device-plugin"]["image"] == "v0.5.20"
    # The GPU operator's newest release whose chart admits the minor; its version is the tag.
    assert minors["1.36"]["gpu-operator"] == {"chart": "v26.7.0", "image": "v26.7.0"}
    assert minors["1.37"]["gpu-operator"] == {"chart": "v26.3.0", "image": "v26.3.0"}
    # The DCGM exporter at the pin's newest tag (4.6.0-4.9.0 came later), image tag from its values.
    assert minors["1.35"]["dcgm-exporter"] == {"chart": "4.8.2", "image": "4.5.3-4.8.2-distroless"}
    assert minors["1.35"]["nvidia-dra-driver-gpu"] == {"chart": "25.12.0", "image": "v25.12.0"}


def test_kueue_is_the_pins_newest_release_from_the_minor_its_readme_requires(upstream, tmp_path):
    gen.main(upstream)
    minors = json.loads((tmp_path / "out.json").read_text())["minors"]
    # v0.20.0 came after the pin's newest (v0.19.2); v0.19.2 requires 1.36.
    assert "kueue" not in minors["1.35"]
    assert minors["1.36"]["kueue"] == minors["1.37"]["kueue"] == {"chart": "0.19.2", "image": "v0.19.2"}
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["charts"]["kueue"] == {
        "repo": "oci://registry.k8s.io/kueue/charts/kueue",
        "image": "registry.k8s.io/kueue/kueue",
    }


def test_the_table_names_where_every_chart_and_image_comes_from(upstream, tmp_path):
    gen.main(upstream)
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["charts"]["cluster-autoscaler"]["image"] == "registry.k8s.io/autoscaling/cluster-autoscaler"
    assert doc["charts"]["karpenter"]["image"] == "public.ecr.aws/k/c"
    assert {s["role"] for s in doc["source"]} >= {"autoscaler-charts", "device-plugin-charts", "eks-ami-changelog"}
    assert {"efa-plugin-chart", "gpu-operator-chart", "dcgm-exporter-chart"} <= {s["role"] for s in doc["source"]}
    assert doc["charts"]["gpu-operator"]["image"] == "nvcr.io/nvidia/gpu-operator"
    # The operands the toolkit's values run, whose images a mirror (imageRegistry) moves too.
    assert doc["charts"]["gpu-operator"]["repositories"]["migManager"] == "nvcr.io/nvidia/migManager"
    assert doc["charts"]["dcgm-exporter"]["image"] == "nvcr.io/nvidia/k8s/dcgm-exporter"


@pytest.mark.parametrize(
    "constraint, minor, admits",
    [(">= 1.10.0-0", "1.36", True), (">=1.20.0, <1.35.0", "1.35", False), ("<1.20 || >=1.30", "1.31", True)],
)
def test_kube_version_constraints_read_as_helm_does(constraint, minor, admits):
    assert gen.constraint_admits(constraint, minor) is admits


def test_the_node_agent_data_reads_the_dcgm_server_of_the_agents_chart():
    agent = load("generate_node_agent_data")
    values = (
        "dcgmAgent:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
        "        nodeSelectorTerms:\n        - matchExpressions:\n"
        "          - {key: node.kubernetes.io/instance-type, operator: In, values: [p5.48xlarge, g5.xlarge]}\n"
        "          - {key: eks.amazonaws.com/compute-type, operator: NotIn, values: [fargate, auto]}\n"
    )
    daemonset = 'command: ["/usr/bin/nv-hostengine"]\nports:\n- containerPort: 5555\n  hostPort: 5555\n'
    assert agent.dcgm_server(values, daemonset) == {
        "instanceTypes": ["g5.xlarge", "p5.48xlarge"],
        "notOnComputeTypes": ["auto", "fargate"],
        "hostPort": 5555,
    }
    with pytest.raises(SystemExit):
        agent.dcgm_server(values, "image: something-else\n")
