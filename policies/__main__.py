"""Entry point the Pulumi CLI runs for `--policy-pack policies`. Building PolicyPack starts the analyzer
server and blocks, so nothing else lives here: the rules are in mlplatform_policies, importable and
testable on their own (`mlplatform check` runs them offline)."""

from pulumi_policy import EnforcementLevel, PolicyPack

# The pack's venv has the ml-platform-eks package (requirements.txt): the rules and the core they read with.
from mlplatform_policies import PACK_NAME, POLICIES

PolicyPack(
    name=PACK_NAME,
    policies=POLICIES,
    # Every rule sets its own level; this only covers a rule added without one.
    enforcement_level=EnforcementLevel.ADVISORY,
    description="Node-group layout (Iguazio/MLRun best practices) and the EKS security baseline",
)
