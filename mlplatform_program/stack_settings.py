"""The stack's settings as both programs read them: every key of the stack file, validated once."""

from __future__ import annotations

import pulumi

from mlplatform_core.model.config import ConfigError
from mlplatform_core.model.validation import ValidStack, validate_stack


def stack_settings() -> ValidStack:
    """The validated config, layout and workload layer of the stack being deployed.

    Every key of the stack's config, unknown ones included (so they are reported, not ignored): the
    language host hands the whole config over as PULUMI_CONFIG (pulumi.Config reads one key at a time).
    A bad setting stops the program before anything is registered, with every problem at once.
    """
    stack = pulumi.get_stack()
    try:
        return validate_stack(pulumi.runtime.get_config_env(), stack, source=f"stack {stack}")
    except ConfigError as err:
        raise pulumi.RunError(str(err)) from None
