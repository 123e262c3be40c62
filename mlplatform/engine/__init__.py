"""The offline engine: the real Pulumi program, run in-process under Pulumi's mocks, recorded.

- `run`: run_program, the one entry point (execute: a program folder with config already in the engine's format);
- `mocks` and `monitor`: the provider stand-ins and the mock resource monitor;
- `recording`: Recorded resources and the ProgramRun;
- `ordering`: recordings in the order the program constructs its resources;
- `sdk_shortcuts`: speed measures on public APIs only (collector settings, freeze, pump).
"""

from .recording import ProgramRun, Recorded
from .run import run_program

__all__ = ["ProgramRun", "Recorded", "run_program"]
