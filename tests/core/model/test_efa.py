"""The EFA interface layouts (model/efa.py)."""

from __future__ import annotations

import pytest

from mlplatform_core.model import efa


def test_efa_only_is_one_ena_primary_interface_and_efa_only_interfaces_that_take_no_address():
    layout = efa.interfaces(4)
    assert [(i.network_card, i.device, i.interface_type) for i in layout] == [
        (0, 0, "interface"),
        (0, 1, "efa-only"),
        (1, 0, "efa-only"),
        (2, 0, "efa-only"),
        (3, 0, "efa-only"),
    ]
    assert [(i.network_card, i.device, i.interface_type) for i in efa.interfaces(4, efa.EFA)] == [
        (0, 0, "efa"),
        (1, 1, "efa"),
        (2, 1, "efa"),
        (3, 1, "efa"),
    ]
    assert efa.interfaces(0) == ()
    with pytest.raises(ValueError, match="efa-only"):
        efa.interfaces(2, "efa-only")
