"""strata: a typed GPU-platform spec for Amazon EKS, rendered into validated manifests."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("strata")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
