"""What a stack costs before it exists (pure Python).

- `prices`: the generated price snapshot (EC2 on-demand, EKS control plane, NAT gateway, EBS and KMS where
  AWS Price List offer files priced them) and what it does not know;
- `capacity`: node capacity as the estimate sees it, whatever provisions it (managed node groups, ...);
- `estimate`: the cost lines of a stack and its idle floor, desired and ceiling totals.
"""

from .capacity import Capacity, node_group_capacity
from .estimate import Line, StackCost, Total, estimate
from .prices import HOURS_PER_MONTH, Price, price_source, prices_date

__all__ = [
    "HOURS_PER_MONTH",
    "Capacity",
    "Line",
    "Price",
    "StackCost",
    "Total",
    "estimate",
    "node_group_capacity",
    "price_source",
    "prices_date",
]
