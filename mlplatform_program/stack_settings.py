"""The stack's settings as both programs read them: every key of the stack file, validated once."""

from __future__ import annotations

import pulumi

from mlplatform_core.model.config import ConfigError
from mlplatform_core.model.validation import ValidStack, prove_charts, validate_stack, validated_for


def stack_settings() -> ValidStack:
    """The validated config, layout and workload layer of the stack being deployed.

    Run by the offline engine (`mlplatform plan`, `check`, ...), the program reads the stack the tooling
    validated and proved from the same file (validation.validated). Run by the Pulumi CLI, it validates every
    key of the stack's config itself, unknown ones included (so they are reported, not ignored): the language
    host hands the whole config over as PULUMI_CONFIG (pulumi.Config reads one key at a time), and proves the
    add-on charts. A bad setting stops the program before anything is registered, with every problem at once.
    """
    stack = pulumi.get_stack()
    given = validated_for(stack)
    if given is not None:
        return given
    source = f"stack {stack}"
    try:
        valid = validate_stack(pulumi.runtime.get_config_env(), stack, source=source)
        prove_charts(valid, source)
    except ConfigError as err:
        raise pulumi.RunError(str(err)) from None
    return valid
