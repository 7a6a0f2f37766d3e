"""The storage pack: EFS, FSx for Lustre and Mountpoint for S3 drivers, classes, volumes and claims."""

from strata.pack import LegacyField

from . import rules
from .checks import check
from .config import Config
from .context import context
from .exports import exports

RULES = rules.RULES
LEGACY_FIELDS = (
    LegacyField("storage.s3.storageClasses", rules.S3_STATIC_ONLY,
                "Mountpoint for S3 has no dynamic provisioning: declare existing buckets under storage.s3.buckets"),
)

__all__ = ["Config", "check", "context", "exports", "RULES", "LEGACY_FIELDS"]
