"""The offline engine: the real Pulumi program, run in-process under Pulumi's mocks, recorded.

- `run`: run_program, the one entry point;
- `mocks` and `monitor`: the provider stand-ins and the mock resource monitor;
- `remote`: remote components (pulumi_eks.Cluster) as the real engine sees them; `urn`: engine URNs;
- `recording`: Recorded resources and the ProgramRun;
- `sdk_shortcuts`: speed shortcuts that skip SDK work the mocks never need.
"""

from .recording import ProgramRun, Recorded
from .remote import ModelError
from .run import run_program

__all__ = ["ModelError", "ProgramRun", "Recorded", "run_program"]
