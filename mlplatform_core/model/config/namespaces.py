"""Config key namespaces: a key outside this project's namespace is read by a provider, or by nobody.

Pulumi hands every `<namespace>:<key>` of a stack file to the program; the project reads its own
namespace and aws:region, and the providers the program runs read theirs. A key in any other
namespace is read by nobody, so a misspelt `ml-platfrom-eks:nodeGroups` would drop a whole section
without a word. Such keys are errors, with the nearest known namespace as a suggestion.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from typing import Any

from .errors import PROJECT, REGION_KEY, show

# The providers this program creates resources with (pulumi-aws, pulumi-eks, pulumi-kubernetes; pulumi-eks's
# own children use aws and kubernetes only: nodejs/eks/package.json in pulumi/pulumi-eks), and the engine's
# own settings (pulumi:tags, pulumi:disable-default-providers).
PROVIDER_NAMESPACES = ("aws", "eks", "kubernetes", "pulumi")
KNOWN_NAMESPACES = (PROJECT, *PROVIDER_NAMESPACES)


def _nearest(word: str, choices: tuple[str, ...] | list[str]) -> str | None:
    lowered = {c.lower(): c for c in choices}
    exact = lowered.get(word.lower())
    if exact is not None:
        return exact
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[close[0]] if close else None


def namespace_error(key: str, settings: Collection[str] = ()) -> str | None:
    """Why a namespaced key is read by nobody (None when this project or a provider reads it). `settings`: the
    toolkit's own setting names, so that `<project>:kubernetesVersion` (what `pulumi config set` writes without
    a namespace, in a project of another name) is pointed to ml-platform-eks:kubernetesVersion."""
    namespace, _, name = key.partition(":")
    if namespace in KNOWN_NAMESPACES:
        return None
    known = (
        f"the toolkit's ({PROJECT}, whatever the project is called) nor a provider's ({', '.join(PROVIDER_NAMESPACES)})"
    )
    if name in settings:
        return (
            f"namespace {show(namespace)} is neither {known}; did you mean {PROJECT}:{name}? (`pulumi config set` "
            "without a namespace writes the project's own)"
        )
    near = _nearest(namespace, KNOWN_NAMESPACES)
    if near is not None:
        return f"namespace {show(namespace)} is neither {known}; did you mean {near}:{name}?"
    return f"namespace {show(namespace)} is neither {known}, so nothing would read this setting"


def region_hint(raw: Mapping[str, Any]) -> str | None:
    """When aws:region is missing, the aws key that looks like a misspelling of it."""
    keys = [k for k in raw if isinstance(k, str) and k.lower().startswith("aws:")]
    near = difflib.get_close_matches(REGION_KEY, [k.lower() for k in keys], n=1, cutoff=0.75)
    if not near:
        return None
    written = next(k for k in keys if k.lower() == near[0])
    return f"missing; did you mean {REGION_KEY} instead of {show(written)}?"
