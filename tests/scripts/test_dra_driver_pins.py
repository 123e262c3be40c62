"""The NVIDIA DRA driver's pins (scripts/generators/generate_addon_versions.py): its chart's release tags, 1.34 on."""

from __future__ import annotations

from pathlib import Path

from tests.scripts.test_addon_versions_generator import gen, repo

CHART = "deployments/helm/nvidia-dra-driver-gpu"


def release(version: str, kube: str) -> dict[str, str]:
    return {
        f"{CHART}/Chart.yaml": f'name: nvidia-dra-driver-gpu\nversion: "{version}"\nappVersion: "{version}"\n'
        f'kubeVersion: "{kube}"\n',
        f"{CHART}/values.yaml": "image:\n  repository: nvcr.io/nvidia/k8s-dra-driver-gpu\n",
    }


def test_the_newest_release_admitting_each_minor_from_1_34_is_pinned(tmp_path: Path):
    git = repo(
        tmp_path / "dra",
        [
            ("v25.3.0", release("25.3.0", ">=1.32.0-0")),
            ("v25.8.0-rc.1", release("25.8.0-rc.1", ">=1.32.0-0")),  # not a release
            ("v25.8.0", release("25.8.0", ">=1.32.0-0")),
            ("v25.12.0", release("25.12.0", ">=1.32.0-0")),
            ("v26.1.0", release("26.1.0", ">=1.32.0-0")),  # after the pin's newest: left out
        ],
    )
    charts, image = gen.read_dra_driver(git, {"newest": "v25.12.0"})
    assert sorted(charts) == ["25.12.0", "25.3.0", "25.8.0"] and image == "nvcr.io/nvidia/k8s-dra-driver-gpu"
    assert gen.dra_row("1.33", charts) is None  # DRA (resource.k8s.io/v1) from 1.34 only
    assert gen.dra_row("1.35", charts) == {"chart": "25.12.0", "image": "v25.12.0"}
    table = {"minors": {"1.33": {}, "1.35": {"nvidia-dra-driver-gpu": {"chart": "old"}}}, "charts": {}, "source": []}
    merged = gen.merge_dra(table, charts, image, {"role": "dra-driver-chart", "newest": "v25.12.0"})
    pin = {"chart": "25.12.0", "image": "v25.12.0"}
    assert merged["minors"] == {"1.33": {}, "1.35": {"nvidia-dra-driver-gpu": pin}}
    assert merged["source"] == [{"role": "dra-driver-chart", "newest": "v25.12.0"}]
