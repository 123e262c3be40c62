"""MIG profiles per GPU model, from the GPU operator's default mig-parted configuration (generated data)."""

from __future__ import annotations

import pytest

from mlplatform_core.model import instances, mig


def profiles(instance_type: str) -> dict[str, int] | None:
    gpu = mig.for_instance(instances.lookup(instance_type))
    return None if gpu is None else dict(gpu.profiles)


@pytest.mark.parametrize(
    ("instance_type", "expected"),
    [
        # NVIDIA MIG user guide, "Supported MIG Profiles": A100-40GB, then the 80GB A100 and H100.
        ("p4d.24xlarge", {"1g.5gb": 7, "1g.10gb": 4, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1, "7g.40gb": 1}),
        ("p4de.24xlarge", {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}),
        ("p5.48xlarge", {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}),
        ("p5e.48xlarge", {"1g.18gb": 7, "1g.35gb": 4, "2g.35gb": 3, "3g.71gb": 2, "4g.71gb": 1, "7g.141gb": 1}),
        ("p6-b200.48xlarge", {"1g.23gb": 7, "1g.45gb": 4, "2g.45gb": 3, "3g.90gb": 2, "4g.90gb": 1, "7g.180gb": 1}),
        # Four compute and memory slices, one memory slice per compute slice.
        ("g7e.2xlarge", {"1g.24gb": 4, "2g.48gb": 2, "4g.96gb": 1}),
    ],
)
def test_profiles_and_counts_per_gpu_model(instance_type, expected):
    assert profiles(instance_type) == expected


@pytest.mark.parametrize("instance_type", ["g5.xlarge", "g6.xlarge", "g6e.xlarge", "g4dn.xlarge", "p3dn.24xlarge"])
def test_gpus_without_mig_have_no_profiles(instance_type):
    assert profiles(instance_type) is None


def test_a_stale_section_comment_does_not_give_a_gpu_profiles_of_another_memory_size():
    # The file puts all-2g.20gb and all-7g.80gb under a "# GB200, B200" comment; their memory says 80 GB GPUs.
    b200 = profiles("p6-b200.48xlarge")
    assert "2g.20gb" not in b200 and "7g.80gb" not in b200
    assert profiles("p5.48xlarge")["7g.80gb"] == 1


def test_the_snapshot_names_its_source():
    src = mig.source()["source"][0]
    assert src["repo"] == "NVIDIA/gpu-operator" and src["path"].endswith("0400_configmap.yaml") and src["commit"]
