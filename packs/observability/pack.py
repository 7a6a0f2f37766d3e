"""The observability pack (in development: renders nothing yet)."""

from strata.spec.base import StrictModel


class Config(StrictModel):
    pass
