"""The base every spec model inherits, and the constrained types several sections share."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints
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


def exactly_one(model: BaseModel, first: str, second: str) -> None:
    """For a model validator: refuse unless exactly one of two alternative fields (Python
    names) is set, naming them as the YAML spells them."""
    if (getattr(model, first) is None) == (getattr(model, second) is None):
        raise ValueError(f"set exactly one of {to_camel(first)} and {to_camel(second)}")


# A DNS-1123 label: namespaces, node pools, teams and most object names.
DnsLabel = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")]
# A Kubernetes resource quantity, written as a string ("100", "500m", "64Gi").
Quantity = Annotated[str, StringConstraints(pattern=r"^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")]
_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)([a-zA-Z]*)$")
_QUANTITY_SUFFIX = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
                    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def quantity(value: str | float) -> float:
    """A Quantity as a number in its base unit (cores, bytes, objects): "500m" is 0.5, "8Gi" 8 * 2**30."""
    if isinstance(value, (int, float)):
        return float(value)
    match = _QUANTITY.match(value)
    if match is None or match.group(2) not in _QUANTITY_SUFFIX:
        raise ValueError(f"not a quantity: {value!r}")
    return float(match.group(1)) * _QUANTITY_SUFFIX[match.group(2)]


# A Go duration as Karpenter accepts it ("30s", "5m", "720h", "1h30m").
Duration = Annotated[str, StringConstraints(pattern=r"^([0-9]+(s|m|h))+$")]

# Prometheus' own duration grammar (prometheus/common model.ParseDuration, which rule `for`,
# retention and scrape intervals go through): "0", or integers with the units y w d h m s ms,
# each at most once and from the largest to the smallest ("1d", "1h30m", "0s", "90s"), no
# more than 2^63-1 nanoseconds. A year is 365d, a week 7d, a day 24h.
_PROMETHEUS_UNITS = {"y": 365 * 86400 * 10**9, "w": 7 * 86400 * 10**9, "d": 86400 * 10**9, "h": 3600 * 10**9,
                     "m": 60 * 10**9, "s": 10**9, "ms": 10**6}
_PROMETHEUS_PART = re.compile(r"([0-9]+)(ms|[ywdhms])")


def prometheus_duration_ns(text: str) -> int:
    """The duration in nanoseconds, or ValueError exactly where Prometheus refuses it."""
    if text == "0":
        return 0
    if text == "":
        raise ValueError("empty duration string")
    total, pos, last = 0, 0, -1
    order = list(_PROMETHEUS_UNITS)
    while pos < len(text):
        match = _PROMETHEUS_PART.match(text, pos)
        if match is None or match.end() < len(text) and not text[match.end()].isdigit():
            raise ValueError(f"{text!r} is not a Prometheus duration: write integers with the units y, w, d, h, m, s, ms "
                             "from the largest to the smallest, each once (1d, 1h30m, 90s, 0s)")
        rank = order.index(match.group(2))
        if rank <= last:
            raise ValueError(f"{text!r} is not a Prometheus duration: units must go from the largest to the smallest, "
                             "each once (write 1h30m, not 30m1h)")
        last, pos = rank, match.end()
        total += int(match.group(1)) * _PROMETHEUS_UNITS[match.group(2)]
        if total > 2**63 - 1:
            raise ValueError(f"{text!r} is out of range: Prometheus durations end at about 292 years")
    return total


def _prometheus_duration(text: str) -> str:
    prometheus_duration_ns(text)
    return text


PrometheusDuration = Annotated[str, AfterValidator(_prometheus_duration)]
LabelValue = Annotated[str, StringConstraints(pattern=r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$", max_length=63)]
LabelKey = Annotated[
    str,
    StringConstraints(pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"),
]
PositiveInt = Annotated[int, Field(gt=0)]
NonNegativeInt = Annotated[int, Field(ge=0)]
