"""Where the project is, and whether its programs are built on this toolkit: decided from their source, never run.

A project is a Pulumi project (Pulumi.yaml) whose Python program calls mlplatform_program's
`cluster_program()`; a stack whose Kubernetes layer is separate also needs the Pulumi project in its
`kubernetes-layer/` folder, whose program calls `kubernetes_layer_program()`. `mlplatform init` writes both.
Commands find the project as the Pulumi CLI finds Pulumi.yaml, from the working directory upward
(pulumi/pulumi sdk/go/common/workspace/paths.go, DetectProjectPathFrom), or take --project-dir. A program
that does not import and call the toolkit's programs is refused (ProjectError, exit 2) before any of it runs:
the offline engine executes a project's program, so it must never execute someone else's.
"""

from __future__ import annotations

import ast
import atexit
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mlplatform_core.errors import InputError

from .stack_names import PROJECT_NAME

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")  # the Python runtime's project files (workspace.ProjectFile + exts)
PACKAGE = "mlplatform_program"
CLUSTER_PROGRAM = "cluster_program"
LAYER_PROGRAM = "kubernetes_layer_program"
PROGRAMS = (CLUSTER_PROGRAM, LAYER_PROGRAM)
KUBERNETES_DIRECTORY = "kubernetes-layer"  # mlplatform_core.model.deployment.KUBERNETES_DIRECTORY (a test pins it)
DEFAULT_PROJECT = "ml-platform-eks"  # the program's default cluster project (mlplatform_core PROJECT; tested)
MAX_SOURCE_BYTES = 1_000_000  # a __main__.py is a few lines; do not parse a huge file


class ProjectError(InputError):
    """No project where one was looked for, or a project whose program is not built on this toolkit."""


@dataclass(frozen=True)
class Program:
    """One Pulumi project folder built on the toolkit: its Pulumi.yaml and the program it runs."""

    file: Path  # its Pulumi.yaml
    name: str  # the Pulumi project name: URNs and StackReferences use it
    entry: Path  # the file that calls the toolkit's program (__main__.py, or `main:`)
    run_path: Path  # what the language host runs: the program folder, or the `main:` file
    calls: str  # CLUSTER_PROGRAM or LAYER_PROGRAM
    stack_dir: Path  # where its Pulumi.<stack>.yaml files are (stackConfigDir)
    cluster_project: str | None = None  # kubernetes_layer_program(cluster_project=...), when a literal

    @property
    def root(self) -> Path:
        return self.file.parent

    def stack_file(self, stack: str) -> Path:
        """Pulumi.<stack>.yaml beside the project file's extension (workspace.ProjectStackPath)."""
        return self.stack_dir / f"Pulumi.{stack}{self.file.suffix}"


@dataclass(frozen=True)
class Project:
    """The cluster program's project, its Kubernetes layer when it has one, and whether it is the built-in one."""

    cluster: Program
    kubernetes_layer: Program | None
    builtin: bool = False  # no project found: the installed programs, for a --config-file alone

    @property
    def root(self) -> Path:
        return self.cluster.root

    @property
    def name(self) -> str:
        return self.cluster.name

    @property
    def stack_dir(self) -> Path:
        return self.cluster.stack_dir

    def stack_file(self, stack: str) -> Path:
        return self.cluster.stack_file(stack)

    def stack_names(self) -> list[str]:
        """Every stack with a file in the stack folder: the <stack> of each Pulumi.<stack>.yaml, sorted."""
        if self.builtin:
            return []
        suffix = self.cluster.file.suffix
        names = (p.name[len("Pulumi.") : -len(suffix)] for p in self.stack_dir.glob(f"Pulumi.*{suffix}"))
        return sorted(n for n in names if n)

    def policy_config(self, stack: str) -> Path | None:
        """policies/config/<stack>.json, the file CI passes as --policy-pack-config for that stack."""
        if self.builtin:
            return None
        path = self.root / "policies" / "config" / f"{stack}.json"
        return path if path.is_file() else None


def _project_file(folder: Path) -> Path | None:
    return next((folder / n for n in PROJECT_FILES if (folder / n).is_file()), None)


def _load_yaml(path: Path) -> object:
    import yaml  # only once a command looks for its project

    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise ProjectError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    except yaml.YAMLError as err:
        raise ProjectError(f"{path} is not valid YAML: {err}") from None


def _runtime(settings: dict) -> object:
    runtime = settings.get("runtime")
    return runtime.get("name") if isinstance(runtime, dict) else runtime


def _is_module_call(f: ast.Attribute, modules: set[str]) -> bool:
    return isinstance(f.value, ast.Name) and f.value.id in modules and f.attr in PROGRAMS


def _calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    """The toolkit programs the module calls: through `from mlplatform_program import cluster_program [as x]`
    (or from one of its modules) or `import mlplatform_program [as m]` and `m.cluster_program()`."""
    functions: dict[str, str] = {}  # local name -> program
    modules: set[str] = set()  # local names of the package
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == PACKAGE:
                functions.update({a.asname or a.name: a.name for a in node.names if a.name in PROGRAMS})
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == PACKAGE or (a.asname is None and a.name.split(".")[0] == PACKAGE):
                    modules.add(a.asname or PACKAGE)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in functions:
            found.append((functions[f.id], node))
        elif isinstance(f, ast.Attribute) and _is_module_call(f, modules):
            found.append((f.attr, node))
    return found


def _entry(file: Path, settings: dict) -> tuple[Path, Path]:
    """The file to read and what the language host runs: `main:` (a folder or a file) or the project folder.

    The Python language host runs the program folder's __main__.py, or the `main:` file, with runpy
    (sdk/python/cmd/pulumi-language-python-exec: runpy.run_path(PROGRAM)).
    """
    main = settings.get("main")
    if main is not None and not isinstance(main, str):
        raise ProjectError(f"{file}: `main` must be a path (a folder or a .py file), not {main!r}")
    target = (file.parent / main) if main else file.parent
    entry = target / "__main__.py" if target.is_dir() else target
    return entry, target


def read_program(file: Path) -> Program:
    """The project of a Pulumi.yaml, if its program is built on the toolkit; ProjectError naming the file if not.

    Decided from the program's source alone (parsed, never imported or run): it must be a Python program
    that imports mlplatform_program and calls exactly one of its programs.
    """
    settings = _load_yaml(file)
    if not isinstance(settings, dict):
        raise ProjectError(f"{file} is not a Pulumi project file (a YAML mapping with name and runtime)")
    name = settings.get("name")
    if not isinstance(name, str) or not PROJECT_NAME.fullmatch(name):
        raise ProjectError(
            f"{file}: the project name {name!r} is not a Pulumi project name (1 to 100 letters, digits, '-', '_' "
            "or '.')"
        )
    refuse = f"{file} is a Pulumi project not built on ml-platform-eks, so mlplatform does not run its program"
    runtime = _runtime(settings)
    if runtime != "python":
        raise ProjectError(f"{refuse}: its runtime is {runtime!r}, not python")
    entry, run_path = _entry(file, settings)
    try:
        with entry.open("rb") as fh:
            source = fh.read(MAX_SOURCE_BYTES + 1)
    except OSError as err:
        raise ProjectError(f"{refuse}: cannot read its program {entry}: {err.strerror or err}") from None
    if len(source) > MAX_SOURCE_BYTES:
        raise ProjectError(f"{refuse}: its program {entry} is over {MAX_SOURCE_BYTES:,} bytes")
    try:
        tree = ast.parse(source, filename=str(entry))
    except (SyntaxError, ValueError) as err:
        raise ProjectError(f"{refuse}: its program {entry} is not valid Python: {err}") from None
    calls = _calls(tree)
    kinds = sorted({kind for kind, _ in calls})
    if not kinds:
        raise ProjectError(
            f"{refuse}: its program {entry} does not call {PACKAGE}.{CLUSTER_PROGRAM}() or {LAYER_PROGRAM}() "
            "(`mlplatform init DIR` writes a project that does)"
        )
    if len(kinds) > 1:
        raise ProjectError(f"{entry} calls both {' and '.join(kinds)}: a Pulumi project runs one of them")
    cluster_project = None
    for _, call in calls:
        for kw in call.keywords:
            if kw.arg == "cluster_project" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                cluster_project = kw.value.value
    stack_dir = settings.get("stackConfigDir") or settings.get("config")  # `config:` is its old name
    return Program(
        file=file,
        name=name,
        entry=entry,
        run_path=run_path,
        calls=kinds[0],
        stack_dir=(file.parent / stack_dir).resolve() if isinstance(stack_dir, str) else file.parent,
        cluster_project=cluster_project,
    )


def _layer_of(cluster: Program) -> Program | None:
    """The Kubernetes layer beside the cluster program (kubernetes-layer/), checked against it."""
    file = _project_file(cluster.root / KUBERNETES_DIRECTORY)
    if file is None:
        return None
    layer = read_program(file)
    if layer.calls != LAYER_PROGRAM:
        raise ProjectError(f"{layer.entry} calls {layer.calls}(); the Kubernetes layer calls {LAYER_PROGRAM}()")
    reads = layer.cluster_project or DEFAULT_PROJECT
    if reads != cluster.name:
        how = "" if layer.cluster_project else " (the default: it passes no cluster_project)"
        raise ProjectError(
            f"{layer.entry} reads the cluster stack of project {reads!r}{how}, but {cluster.file} names the "
            f"project {cluster.name!r}: call {LAYER_PROGRAM}(cluster_project={cluster.name!r})"
        )
    if layer.stack_dir != cluster.stack_dir:
        raise ProjectError(
            f"{layer.file} reads its stack files from {layer.stack_dir}, the cluster project from "
            f"{cluster.stack_dir}: both programs must read one stack file per stack (set stackConfigDir in "
            f"{layer.file.name} to the cluster project's folder, e.g. ../stacks)"
        )
    return layer


def _project_at(file: Path) -> Project:
    program = read_program(file)
    if program.calls == LAYER_PROGRAM:  # inside kubernetes-layer/: the project is the folder above
        parent = _project_file(file.parent.parent)
        if parent is None:
            raise ProjectError(
                f"{file} is a Kubernetes layer ({LAYER_PROGRAM}) with no cluster project (Pulumi.yaml) in the "
                "folder above it"
            )
        return _project_at(parent)
    return Project(program, _layer_of(program))


def find_project(project_dir: str | Path | None = None, *, required: bool = True) -> Project | None:
    """The project of --project-dir, else the nearest one from the working directory upward.

    None (with required=False) when there is none: a --config-file alone then runs the installed programs.
    """
    if project_dir is not None:
        folder = Path(project_dir).expanduser()
        if not folder.is_dir():
            raise ProjectError(f"--project-dir {project_dir}: no such folder")
        file = _project_file(folder)
        if file is None:
            raise ProjectError(
                f"--project-dir {project_dir}: no {' or '.join(PROJECT_FILES)} in {folder.resolve()} "
                "(`mlplatform init DIR` creates a project)"
            )
        return _project_at(file)
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        file = _project_file(folder)
        if file is not None:
            return _project_at(file)
    if not required:
        return None
    raise ProjectError(
        f"no project found: looked for {' or '.join(PROJECT_FILES)} in {here} and every folder above it. "
        "Run `mlplatform init DIR` to create a project, pass --project-dir DIR, or plan a stack file alone "
        "with --config-file PATH"
    )


# The programs `mlplatform init` writes; with no project, a --config-file runs exactly these.
CLUSTER_MAIN = f'''"""The cluster program of an ml-platform-eks project: VPC, control plane, node groups, access."""

from {PACKAGE} import {CLUSTER_PROGRAM}

{CLUSTER_PROGRAM}()
'''


def layer_main(cluster_project: str) -> str:
    """The Kubernetes layer's __main__.py, reading the cluster stack of `cluster_project`."""
    return f'''"""The Kubernetes layer (kubernetesLayer: separate), deployed from inside the cluster's VPC."""

from {PACKAGE} import {LAYER_PROGRAM}

# The cluster stack it reads (StackReference <organization>/{cluster_project}/<stack>): ../Pulumi.yaml's name.
{LAYER_PROGRAM}(cluster_project={cluster_project!r})
'''


_builtin: list[Project] = []


def builtin_project() -> Project:
    """The installed programs as a project of their own (named as this package's), for a --config-file alone:
    the same __main__.py files `mlplatform init` writes, in a temporary folder removed at exit."""
    if _builtin:
        return _builtin[0]
    root = Path(tempfile.mkdtemp(prefix="mlplatform-program-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    (root / "__main__.py").write_text(CLUSTER_MAIN)
    (root / KUBERNETES_DIRECTORY).mkdir()
    (root / KUBERNETES_DIRECTORY / "__main__.py").write_text(layer_main(DEFAULT_PROJECT))

    def program(folder: Path, name: str, calls: str, cluster_project: str | None = None) -> Program:
        file = folder / PROJECT_FILES[0]
        return Program(file, name, folder / "__main__.py", folder, calls, root, cluster_project)

    layer = program(root / KUBERNETES_DIRECTORY, f"{DEFAULT_PROJECT}-kubernetes", LAYER_PROGRAM, DEFAULT_PROJECT)
    _builtin.append(Project(program(root, DEFAULT_PROJECT, CLUSTER_PROGRAM), layer, builtin=True))
    return _builtin[0]


def project_root() -> Path:
    """The root folder of the project of the working directory (ProjectError when there is none)."""
    project = find_project()
    assert project is not None
    return project.root
