"""The mlplatform toolkit: the `mlplatform` command and the offline tooling on top of the pure core.

- `engine`: runs the real Pulumi program (__main__.py) in-process under mocks and records it;
- `plan`, `check`: a stack's plan (config, layout, recording) and its policy check;
- `reports`: the JSON documents and the tables people read;
- `commands`: one module per CLI command; `cli` wires them into `mlplatform`.
"""

__version__ = "0.4.0"  # the package's version (pyproject.toml reads it from here)
