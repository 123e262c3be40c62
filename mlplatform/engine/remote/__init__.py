"""Remote (multi-language) components recorded the way the real engine sees them.

Under Pulumi's mocks a remote component is one registration carrying the Python
inputs. Under the engine its provider's Construct registers it (with the properties
its SDK sends) and creates children that carry the settings. `record` replaces the
former by the latter for every component type with a model (one module each).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..recording import Recorded, clean
from ..urn import make_urn
from . import pulumi_eks
from .model import Child, Construction, ModelError, NewResource

if TYPE_CHECKING:
    from ..pulumi_internals import Registration

MODELS = {pulumi_eks.COMPONENT_TYPE: pulumi_eks}

__all__ = ["MODELS", "ModelError", "modelled", "record", "reference_outputs"]


def modelled(type_: str, remote: bool) -> bool:
    return remote and type_ in MODELS


def reference_outputs(type_: str) -> dict[str, str]:
    """The component's outputs that are resource references to its children: output name -> child type."""
    return dict(getattr(MODELS[type_], "REFERENCE_OUTPUTS", {}))


def record(
    registration: Registration,
    inputs: Mapping[str, Any],
    *,
    urn: str,
    stack: str,
    project: str,
    region: str,
    new_resource: NewResource,
) -> tuple[dict[str, Any], list[Recorded]]:
    """The component's outputs (what the program reads) and the recording of it and its children.

    `registration` is the component's registration: its version names the provider plugin the engine
    would load, its property dependencies tell which inputs are other resources' outputs.
    """
    model = MODELS[registration.type]
    # Inputs that depend on resources of this program are their ids and ARNs here: unknown in a fresh preview.
    unknown = frozenset(k for k, deps in registration.property_dependencies.items() if deps)
    built: Construction = model.construct(
        registration.name,
        inputs,
        version=registration.version,
        region=region,
        unknown=unknown,
        new_resource=new_resource,
    )
    protect = registration.protect
    component = Recorded(
        urn=urn,
        type=registration.type,
        name=registration.name,
        parent=registration.parent,
        custom=False,
        remote=True,
        inputs=clean(built.props),
        outputs=built.outputs,
        protect=protect,
        ignore_changes=list(registration.ignore_changes),
        unknown_in_preview=built.unknown_in_preview,
    )
    urns: dict[int, str] = {}
    out = [component]
    for child in built.children:
        parent = urns[id(child.parent)] if child.parent is not None else urn
        urns[id(child)] = make_urn(stack, project, parent, child.type, child.name)
        out.append(_recorded(child, urns[id(child)], parent, protect, model.CREATED_BY))
    return built.outputs, out


def _recorded(child: Child, urn: str, parent: str, protect: bool, created_by: str) -> Recorded:
    return Recorded(
        urn=urn,
        type=child.type,
        name=child.name,
        parent=parent,
        custom=child.custom,
        remote=False,
        inputs=clean(child.inputs),
        outputs=child.outputs,
        # Node SDK children inherit protect from their parent (sdk/nodejs/resource.ts@v3.173.0:475-476),
        # and Construct passes the component's protect on (sdk/nodejs/provider/server.ts construct).
        protect=protect,
        ignore_changes=list(child.ignore_changes),
        created_by=created_by,
        unknown_in_preview=child.unknown_in_preview,
    )
