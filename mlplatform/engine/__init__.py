"""The offline engine: the real Pulumi program, run in-process under Pulumi's mocks, recorded.

- `run`: run_program (one Pulumi program) and run_stack (every program a stack deploys);
- `mocks` and `monitor`: the provider stand-ins and the mock resource monitor;
- `remote`: remote components (pulumi_eks.Cluster) as the real engine sees them; `urn`: engine URNs;
- `recording`: Recorded resources, the ProgramRun and the StackRun of all a stack's programs;
- `sdk_shortcuts`: speed shortcuts that skip SDK work the mocks never need.
"""

from .recording import Invoke, ProgramRun, Recorded, StackRun
from .remote import ModelError
from .run import run_program, run_stack

__all__ = ["Invoke", "ModelError", "ProgramRun", "Recorded", "StackRun", "run_program", "run_stack"]
