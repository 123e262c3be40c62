"""The instance types of a node group: the default AMI for them, and whether each fits the group and the AMI."""

from __future__ import annotations

from .. import instances
from ..config import show


def _ami_arch(ami_type: str) -> str:
    return "arm64" if "ARM" in ami_type else "x86_64"


def default_ami(types: tuple[str, ...], gpu: bool) -> str:
    """AL2023 for the types' architecture (arm64 only when every known type is arm64), NVIDIA for GPU groups."""
    arches = {t.arch for t in map(instances.lookup, types) if t is not None and t.arch}
    arch = "ARM_64" if arches == {"arm64"} else "x86_64"
    return f"AL2023_{arch}_{'NVIDIA' if gpu else 'STANDARD'}"


def instance_type_problems(
    types: tuple[str, ...], explicit: bool, gpu: bool, ami: str, path: tuple
) -> list[tuple[tuple, str]]:
    """Every type is in the catalog, fits the group's kind (GPU or not) and the AMI's architecture: the problems,
    each with its key path."""
    problems: list[tuple[tuple, str]] = []

    def add(key_path: tuple, message: str) -> None:
        problems.append((key_path, message))

    for i, itype in enumerate(types):
        tpath = path + ("instanceTypes", i) if explicit else path + ("instanceTypes",)
        info = instances.lookup(itype)
        if info is None:
            add(tpath, instances.unknown_type_message(itype))
            continue
        if gpu and not info.nvidia_gpu:
            if not info.known:
                why = "the catalog knows only its network limits, so it cannot be shown to have an NVIDIA GPU"
            elif info.gpu_maker == "NVIDIA":
                why = "its GPU is a fraction of one, which pods cannot request as nvidia.com/gpu"
            else:
                why = "it has no NVIDIA GPU" + (f" ({info.gpu_maker or info.accelerator})" if info.accelerated else "")
            examples = ", ".join(instances.nvidia_gpu_examples())
            add(tpath, f"{show(itype)}: {why}; a GPU group needs NVIDIA GPU types such as {examples}")
        elif not gpu and info.accelerated:
            add(
                tpath,
                f"{show(itype)} has an accelerator ({info.gpu_maker or info.accelerator}); accelerated types belong "
                "only in the gpu group or an additional group with gpu: true",
            )
        elif not gpu and not info.known:
            add(
                tpath,
                f"{show(itype)}: {instances.UNKNOWN_ACCELERATORS}; a CPU group takes only types known to have "
                "none, such as m5.xlarge or m7i.2xlarge",
            )
        if info.arch and info.arch != _ami_arch(ami):
            add(tpath, f"{show(itype)} is {info.arch} but amiType {ami} is {_ami_arch(ami)}; pick matching ones")
    return problems
