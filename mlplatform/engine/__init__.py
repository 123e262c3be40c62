"""The offline engine: the real Pulumi program, run in-process under Pulumi's mocks, recorded.

- `run`: run_program (one Pulumi program; execute: a program folder with config already in the engine's format)
  and run_stack (every program a stack deploys);
- `mocks`: the provider stand-ins; `pulumi_internals`: every use of the SDK beyond its public API (the mock
  resource monitor among them), in one place;
- `remote`: remote components (pulumi_eks.Cluster) as the real engine sees them; `urn`: engine URNs;
- `recording`: Recorded resources, the ProgramRun and the StackRun of all a stack's programs;
- `ordering`: recordings in the order the program constructs its resources;
- `placeholders`: the values the mocks make up (only real after deploy) and how reports show them;
- `collector_and_pump`: speed measures on public APIs only (collector settings, freeze, pump).
"""

from .recording import Invoke, ProgramRun, Recorded, StackRun
from .remote import ModelError
from .run import run_program, run_stack

__all__ = ["Invoke", "ModelError", "ProgramRun", "Recorded", "StackRun", "run_program", "run_stack"]
