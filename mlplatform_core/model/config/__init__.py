"""What a platform team may set in stacks/Pulumi.<stack>.yaml, and how it is read and checked.

- `stack_file`: reading a stack file safely (size, nesting, YAML alias limits, repeated keys, lines);
- `namespaces`: which key namespaces someone reads (this project's, the providers');
- `stack`: the StackConfig model and `parse` (namespaced keys to a validated model);
- `node_groups`, `network`, `workloads`, `access`: the settings sections;
- `kubernetes_layer`: where the Kubernetes layer is deployed from (with the cluster, or from inside the VPC);
- `errors`: ConfigError / Problem, which name the key path, the bad value and what would be valid;
- `pulumi_format`: the settings as the Pulumi engine hands them to a program.
"""

from .access import partition_of
from .errors import PROJECT, REGION_KEY, ConfigError, Problem, key_path, show
from .pulumi_format import to_pulumi_config
from .stack import StackConfig, kubernetes_layer_of, parse
from .stack_file import StackDocument, load_stack_file, read_stack_document, read_stack_file

__all__ = [
    "PROJECT",
    "REGION_KEY",
    "ConfigError",
    "Problem",
    "StackConfig",
    "StackDocument",
    "key_path",
    "kubernetes_layer_of",
    "load_stack_file",
    "parse",
    "partition_of",
    "read_stack_document",
    "read_stack_file",
    "show",
    "to_pulumi_config",
]
