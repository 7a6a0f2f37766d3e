"""The base every spec model inherits, and the constrained types several sections share."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel


class StrictModel(BaseModel):
    """Strict, immutable, camelCase in YAML like Kubernetes."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        hide_input_in_errors=True,
    )


# A DNS-1123 label: namespaces, node pools, teams and most object names.
DnsLabel = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")]
# A Kubernetes resource quantity, written as a string ("100", "500m", "64Gi").
Quantity = Annotated[str, StringConstraints(pattern=r"^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")]
_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([a-zA-Z]*)$")
_QUANTITY_SUFFIX = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
                    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def quantity(value: str | float | int) -> float:
    """A Quantity as a number in its base unit (cores, bytes, objects): "500m" is 0.5, "8Gi" 8 * 2**30."""
    if isinstance(value, (int, float)):
        return float(value)
    match = _QUANTITY.match(value)
    if match is None or match.group(2) not in _QUANTITY_SUFFIX:
        raise ValueError(f"not a quantity: {value!r}")
    return float(match.group(1)) * _QUANTITY_SUFFIX[match.group(2)]


# A Go duration as Karpenter accepts it ("30s", "5m", "720h", "1h30m").
Duration = Annotated[str, StringConstraints(pattern=r"^([0-9]+(s|m|h))+$")]
LabelValue = Annotated[str, StringConstraints(pattern=r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$", max_length=63)]
LabelKey = Annotated[
    str,
    StringConstraints(pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"),
]
PositiveInt = Annotated[int, Field(gt=0)]
NonNegativeInt = Annotated[int, Field(ge=0)]
