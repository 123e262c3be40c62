"""Teams on one cluster: Kueue flavors, queues and quotas generated from the layout (pure Python, no Pulumi).

`build_teams(cfg, layout, workloads)` (build.py) -> Teams | None (None: the stack has no `teams`, no Kueue);
`manifests(teams)` (manifests.py) the Kueue objects in creation order; `kueue_configuration(teams)` the
Kueue Configuration parts; `team_problems(teams, layout, workloads)` (checks.py) the plan's checks.
Data types in spec.py (Teams, Team, Flavor, Quota, QUEUE_LABEL).
"""

from .build import build_teams
from .manifests import kueue_configuration, manifests
from .spec import QUEUE_LABEL, Flavor, Quota, Team, Teams, WorkloadPriority

__all__ = [
    "QUEUE_LABEL",
    "Flavor",
    "Quota",
    "Team",
    "Teams",
    "WorkloadPriority",
    "build_teams",
    "kueue_configuration",
    "manifests",
]
