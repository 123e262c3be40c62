"""Scale figures for bench/run: `place` with thousands of pod specs, `plan --all` over many stacks.

Standard library only (bench/run imports it). Usage on its own:
  python bench/scale.py manifest N PATH     # write a manifest of N pod specs (the kinds `place` reads)
  python bench/scale.py stacks N FOLDER     # write a project folder with N stacks (copies of the shipped ones)
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_KINDS = ("Pod", "Deployment", "Job", "StatefulSet", "CronJob")
# Valid objects, as kubectl apply would take them (`place` checks each against the Kubernetes schema first).
_API_VERSIONS = {
    "Pod": "v1",
    "Deployment": "apps/v1",
    "Job": "batch/v1",
    "StatefulSet": "apps/v1",
    "CronJob": "batch/v1",
}
_PATHS = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}


def _pod_spec(i: int) -> dict:
    spec: dict = {
        "containers": [
            {
                "name": "main",
                "image": "mlrun/mlrun:1.8.0",
                "resources": {
                    "requests": {"cpu": f"{100 + i % 900}m", "memory": f"{256 + i % 1024}Mi"},
                    "limits": {"cpu": "2", "memory": "4Gi"},
                },
            }
        ],
        "priorityClassName": "igz-workload-medium" if i % 3 else "igz-workload-low",
    }
    if i % 7 == 0:  # a GPU job: the GPU taint tolerated, one GPU requested
        spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
        spec["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = 1
    if i % 5 == 0:
        spec["nodeSelector"] = {"app.iguazio.com/lifecycle": "non-preemptible"}
    return spec


def manifest_documents(n: int):
    """`n` workload objects, one pod spec each, as YAML documents (JSON flow style: valid YAML, fast to write)."""
    for i in range(n):
        kind = _KINDS[i % len(_KINDS)]
        name = f"w-{i:05d}"
        obj: dict = {"apiVersion": _API_VERSIONS[kind], "kind": kind, "metadata": {"name": name, "namespace": "mlrun"}}
        if kind in ("Deployment", "StatefulSet"):
            obj["spec"] = {
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}}},
            }
        if kind == "CronJob":
            obj["spec"] = {"schedule": "0 3 * * *"}
        node = obj
        path = _PATHS[kind]
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = spec = _pod_spec(i)
        if kind in ("Job", "CronJob"):
            spec["restartPolicy"] = "Never"
        yield json.dumps(obj)


def write_manifest(n: int, path: Path) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for doc in manifest_documents(n):
            out.write("---\n" + doc + "\n")
    return path


def write_stacks(n: int, folder: Path) -> Path:
    """A project folder (Pulumi.yaml, __main__.py, kubernetes-layer/, policies/) with `n` stacks: the shipped
    ones copied in turn, each with a cluster name of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, folder / name)
    shutil.copytree(ROOT / "kubernetes-layer", folder / "kubernetes-layer", dirs_exist_ok=True)
    (folder / "stacks").mkdir(exist_ok=True)
    shipped = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))
    for i in range(n):
        source = shipped[i % len(shipped)]
        (folder / "stacks" / f"Pulumi.s{i:03d}-{source.name.split('.')[1]}.yaml").write_text(
            source.read_text(encoding="utf-8"), encoding="utf-8"
        )
    return folder


# --- measured by bench/run ---------------------------------------------------------------------------

PLACE_TARGET_S, PLACE_TARGET_MB, PLACE_FLAT_MB = 5.0, 300.0, 40.0


def measure_scale(once, measure, mlplatform, tmp: Path, repeat: int, pod_counts=(500, 2000, 10000), stacks=50):
    """`place prod` with growing manifests (time, peak memory: flat as specs stream) and `plan --all` over
    `stacks` stacks in one process against the same plans one process each. Returns (results, verdicts)."""
    results: dict = {"place": {}, "plan_all": {}}
    print(f"\nplace prod -f <manifest> --json ({repeat} runs each):")
    print(f"{'pod specs':>10} {'median s':>9} {'peak MB':>8}")
    for n in pod_counts:
        path = write_manifest(n, tmp / f"manifest-{n}.yaml")
        m = measure([mlplatform("place", "prod", "-f", str(path), "--json")], repeat, ok=(0,))
        results["place"][n] = m
        print(f"{n:10d} {m['s']:9.3f} {m['peak_mb']:8.0f}")
    project = write_stacks(stacks, tmp / "project")
    names = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in (project / "stacks").glob("Pulumi.*.yaml"))
    all_wall, all_peak = once([mlplatform("plan", "--all", "--json")], ok=(0,), cwd=project)
    one_wall, one_peak = once([mlplatform("plan", s, "--json") for s in names], ok=(0,), cwd=project)
    results["plan_all"] = {
        "stacks": stacks,
        "all_s": all_wall,
        "all_peak_mb": all_peak,
        "each_s": one_wall,
        "each_peak_mb": one_peak,
        "ratio": all_wall / one_wall,
    }
    print(
        f"\nplan --all on {stacks} stacks: {all_wall:.1f} s, peak {all_peak:.0f} MB; "
        f"{stacks} single plans: {one_wall:.1f} s, peak {one_peak:.0f} MB each at most; "
        f"ratio {all_wall / one_wall:.2f}"
    )
    big, small = results["place"][max(pod_counts)], results["place"][min(pod_counts)]
    verdicts = {
        f"place prod, {max(pod_counts):,} pod specs < {PLACE_TARGET_S:g} s": (
            big["s"] < PLACE_TARGET_S,
            f"{big['s']:.2f} s",
        ),
        f"place prod, {max(pod_counts):,} pod specs < {PLACE_TARGET_MB:g} MB": (
            big["peak_mb"] < PLACE_TARGET_MB,
            f"{big['peak_mb']:.0f} MB",
        ),
        f"place memory flat ({min(pod_counts)} -> {max(pod_counts):,} specs within {PLACE_FLAT_MB:g} MB)": (
            big["peak_mb"] - small["peak_mb"] <= PLACE_FLAT_MB,
            f"+{big['peak_mb'] - small['peak_mb']:.0f} MB",
        ),
    }
    return results, verdicts


if __name__ == "__main__":
    what, count, where = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    print(write_manifest(count, where) if what == "manifest" else write_stacks(count, where))
