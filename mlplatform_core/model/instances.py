"""EC2 instance facts the layout and the placement check rely on.

A small shipped table, not a live lookup: the plan must run offline. Types not
in the table are reported as unknown by the placement check rather than guessed.
Allocatable resources follow the EKS AMIs' kubelet reservations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

INSTANCE_TYPE_PATTERN = re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9-]+$")

# Families with NVIDIA GPUs that the x86_64 NVIDIA AMIs support.
NVIDIA_GPU_FAMILIES = frozenset(
    {"g4dn", "g5", "g6", "g6e", "gr6", "p3", "p3dn", "p4d", "p4de", "p5", "p5e", "p5en", "p6-b200"}
)
# Families with accelerators the NVIDIA AMIs cannot drive (AMD, Graviton+T4G, Inferentia, Trainium...).
OTHER_ACCELERATOR_FAMILIES = frozenset({"g4ad", "g5g", "inf1", "inf2", "trn1", "trn1n", "trn2", "dl1"})


@dataclass(frozen=True)
class InstanceType:
    name: str
    vcpu: int
    memory_mib: int
    gpus: int
    arch: str  # x86_64 or arm64
    max_pods: int  # ENI-based pod limit of the VPC CNI

    @property
    def allocatable_cpu_millis(self) -> int:
        """vCPUs minus the EKS kube-reserved CPU (6% of core 1, 1% of core 2, 0.5% of cores 3-4, 0.25% beyond)."""
        cores = self.vcpu
        reserved = 60 + (10 if cores > 1 else 0) + 5 * max(0, min(cores, 4) - 2) + 2.5 * max(0, cores - 4)
        return int(cores * 1000 - reserved)

    @property
    def allocatable_memory_mib(self) -> int:
        """Memory minus kube-reserved (255 MiB + 11 MiB per pod) and the 100 MiB hard-eviction threshold."""
        return self.memory_mib - (255 + 11 * self.max_pods) - 100


def _family(rows: dict[str, tuple[int, int, int, int]], family: str, arch: str = "x86_64") -> dict[str, InstanceType]:
    return {
        f"{family}.{size}": InstanceType(f"{family}.{size}", vcpu, gib * 1024, gpus, arch, pods)
        for size, (vcpu, gib, gpus, pods) in rows.items()
    }


# size: (vCPU, memory GiB, GPUs, max pods)
_GENERAL = {
    "large": (2, 8, 0, 29),
    "xlarge": (4, 16, 0, 58),
    "2xlarge": (8, 32, 0, 58),
    "4xlarge": (16, 64, 0, 234),
    "8xlarge": (32, 128, 0, 234),
    "12xlarge": (48, 192, 0, 234),
    "16xlarge": (64, 256, 0, 737),
    "24xlarge": (96, 384, 0, 737),
}
_COMPUTE = {"large": (2, 4, 0, 29), "xlarge": (4, 8, 0, 58), "2xlarge": (8, 16, 0, 58), "4xlarge": (16, 32, 0, 234)}
_MEMORY = {"large": (2, 16, 0, 29), "xlarge": (4, 32, 0, 58), "2xlarge": (8, 64, 0, 58), "4xlarge": (16, 128, 0, 234)}
_BURST = {"medium": (2, 4, 0, 17), "large": (2, 8, 0, 35), "xlarge": (4, 16, 0, 58), "2xlarge": (8, 32, 0, 58)}
_G4DN = {
    "xlarge": (4, 16, 1, 29),
    "2xlarge": (8, 32, 1, 29),
    "4xlarge": (16, 64, 1, 29),
    "8xlarge": (32, 128, 1, 58),
    "12xlarge": (48, 192, 4, 234),
    "16xlarge": (64, 256, 1, 58),
}
_G5_G6 = {
    "xlarge": (4, 16, 1, 58),
    "2xlarge": (8, 32, 1, 58),
    "4xlarge": (16, 64, 1, 234),
    "8xlarge": (32, 128, 1, 234),
    "12xlarge": (48, 192, 4, 737),
    "16xlarge": (64, 256, 1, 234),
    "24xlarge": (96, 384, 4, 737),
    "48xlarge": (192, 768, 8, 345),
}
_G6E = {
    "xlarge": (4, 32, 1, 58),
    "2xlarge": (8, 64, 1, 58),
    "4xlarge": (16, 128, 1, 234),
    "12xlarge": (48, 384, 4, 737),
    "48xlarge": (192, 1536, 8, 737),
}
_P = {
    "p3.2xlarge": (8, 61, 1, 58),
    "p3.8xlarge": (32, 244, 4, 234),
    "p3.16xlarge": (64, 488, 8, 234),
    "p4d.24xlarge": (96, 1152, 8, 737),
    "p5.48xlarge": (192, 2048, 8, 100),
}

INSTANCE_TYPES: dict[str, InstanceType] = {}
for _fam in ("m5", "m5a", "m5d", "m5n", "m6i", "m6a", "m7i", "m7a"):
    INSTANCE_TYPES.update(_family(_GENERAL, _fam))
for _fam in ("m6g", "m7g"):
    INSTANCE_TYPES.update(_family(_GENERAL, _fam, "arm64"))
for _fam in ("c5", "c6i", "c7i"):
    INSTANCE_TYPES.update(_family(_COMPUTE, _fam))
for _fam in ("r5", "r6i", "r7i"):
    INSTANCE_TYPES.update(_family(_MEMORY, _fam))
INSTANCE_TYPES.update(_family(_BURST, "t3"))
INSTANCE_TYPES.update(_family(_G4DN, "g4dn"))
for _fam in ("g5", "g6"):
    INSTANCE_TYPES.update(_family(_G5_G6, _fam))
INSTANCE_TYPES.update(_family(_G6E, "g6e"))
INSTANCE_TYPES.update(
    {name: InstanceType(name, v, gib * 1024, g, "x86_64", pods) for name, (v, gib, g, pods) in _P.items()}
)


def family(instance_type: str) -> str:
    return instance_type.split(".", 1)[0]


def is_nvidia_gpu(instance_type: str) -> bool:
    return family(instance_type) in NVIDIA_GPU_FAMILIES


def is_accelerated(instance_type: str) -> bool:
    """Any accelerator at all: such types belong in a dedicated group, never a general-purpose one."""
    fam = family(instance_type)
    return fam in NVIDIA_GPU_FAMILIES or fam in OTHER_ACCELERATOR_FAMILIES


def lookup(instance_type: str) -> InstanceType | None:
    return INSTANCE_TYPES.get(instance_type)


def gpu_count(instance_types: tuple[str, ...] | list[str]) -> int:
    """GPUs a node of the group is sure to have: the smallest count among the known types (0 if none known)."""
    counts = [t.gpus for t in map(lookup, instance_types) if t is not None]
    return min(counts) if counts else 0
