"""A deploy rehearsal: every AWS resource of a stack, replayed through boto3 against moto's server.

The offline engine records what the program registers (mlplatform.engine, the recording `plan` shows); the
rehearsal creates each AWS resource from it the way pulumi-aws (terraform-provider-aws) calls the API, in
dependency order, substituting the real ids moto answers for the mocks' stand-ins. botocore validates every
request; moto answers as AWS would where it implements the API (IAM's managed policies included), and what it
does not implement is listed by resource type (gaps.py, docs/rehearsal.md).

- `server`: moto's server on loopback; `replay`: the run; `references`: stand-ins and dependency order;
- `mapping`: the mapper registry; `iam`, `ec2_network`, `ec2_compute`, `services`, `eks`: the mappers by service;
- `api`: boto3 calls with botocore's validation; `gaps`: what moto lacks.
"""

from .gaps import EKS_SIDE, NOT_IMPLEMENTED
from .mapping import MAPPERS
from .replay import Failure, Rehearsal, replay
from .server import moto_server, reset

__all__ = ["EKS_SIDE", "MAPPERS", "NOT_IMPLEMENTED", "Failure", "Rehearsal", "moto_server", "replay", "reset"]
