"""The cluster's EKS upgrade policy as the plan shows it: when it takes effect and what extended support costs.

EKS applies the policy on the day after the minor's standard support ends (EKS user guide,
kubernetes-versions: billing for extended support starts that day): STANDARD upgrades the control plane to
the next minor then, EXTENDED keeps it on its minor until extended support ends and bills the higher
control-plane price meanwhile. The calendar is eks_versions; the prices are the cost model's.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

from .. import eks_versions
from ..config import StackConfig
from .prices import HOURS_PER_MONTH, control_plane


def _monthly(usd_per_hour: Decimal | None) -> float | None:
    return None if usd_per_hour is None else float(round(usd_per_hour * HOURS_PER_MONTH, 2))


def upgrade_policy_view(cfg: StackConfig, on: datetime.date) -> dict[str, Any]:
    """{"supportType", "explicit", "takesEffect", "then", "extendedSupportPerMonth", "extraPerMonth", "note"}."""
    support = cfg.support_type
    version = eks_versions.calendar().get(cfg.kubernetes_version)
    standard = control_plane(cfg.region, False).usd_per_hour
    extended = control_plane(cfg.region, True).usd_per_hour
    extra = None if standard is None or extended is None else extended - standard
    view: dict[str, Any] = {
        "supportType": support,
        "explicit": cfg.upgrade_policy.support_type is not None,
        "takesEffect": None,
        "then": None,
        "extendedSupportPerMonth": _monthly(extended),
        "extraPerMonth": _monthly(extra),
    }
    if version is None:
        return view
    effect = version.end_of_standard_support
    view["takesEffect"] = effect.isoformat()
    later = [
        m for m in eks_versions.calendar() if eks_versions.minor_key(m) > eks_versions.minor_key(cfg.kubernetes_version)
    ]
    if support == "STANDARD":
        target = later[0] if later else "the next minor"
        view["then"] = f"EKS upgrades the control plane to {target} (node groups stay behind until rolled)"
    else:
        view["then"] = (
            f"the cluster stays on {cfg.kubernetes_version} until {version.end_of_extended_support.isoformat()} "
            "at the extended-support price"
        )
    cost = f"${view['extendedSupportPerMonth']:.2f}/month" if extended is not None else "an unpriced amount"
    extra_text = f" (${view['extraPerMonth']:.2f} more than standard)" if extra is not None else ""
    view["note"] = (
        f"upgradePolicy.supportType {support}{'' if view['explicit'] else ' (the dev default)'}: from "
        f"{effect.isoformat()} {view['then']}; extended support costs {cost} per cluster{extra_text}"
    )
    if on >= effect and support == "EXTENDED":
        view["note"] += "; in effect now"
    elif on >= effect:
        # "You cannot disable extended support once your cluster has entered it. You can only disable extended
        # support for clusters on standard support." (EKS user guide, versioning/disable-extended-support.adoc)
        cal = eks_versions.calendar()
        standard_minors = [m for m in later if cal[m].end_of_standard_support >= on]
        view["note"] += (
            f"; but {cfg.kubernetes_version} is already in extended support, and EKS does not let a cluster in "
            "extended support switch to STANDARD (disable-extended-support.adoc): upgrade (one minor at a time) "
            f"to {standard_minors[0] if standard_minors else 'a minor in standard support'} or set "
            "upgradePolicy.supportType: EXTENDED"
        )
    return view
