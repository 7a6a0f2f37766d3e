"""The dra pack: Dynamic Resource Allocation (resource.k8s.io/v1) claims, the NVIDIA DRA
driver (standalone chart or GPU Operator GPUCluster mode), ComputeDomains, workloads."""

from strata.pack import LegacyField

from . import rules
from .checks import check
from .config import Config
from .context import context
from .exports import exports

RULES = rules.RULES
_FLAT = "is a v1beta1 request field; in resource.k8s.io/v1 it goes under requests[].exactly"
LEGACY_FIELDS = (
    *(LegacyField(f"dra.claimTemplates[*].requests[*].{field}", rules.V1BETA1_REQUEST, f"{field} {_FLAT}")
      for field in ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess")),
    LegacyField("dra.claimTemplates[*].resourceClassName", rules.CLASSIC_DRA,
                "resourceClassName is classic DRA (v1alpha2, removed); name a deviceClassName in each request"),
    LegacyField("dra.claimTemplates[*].parametersRef", rules.CLASSIC_DRA,
                "parametersRef is classic DRA (v1alpha2, removed); use selectors and sharing"),
    LegacyField("dra.workloads[*].claims[*].source", rules.CLASSIC_DRA,
                "claims[].source is the removed indirection; write claims[].template"),
)

__all__ = ["Config", "check", "context", "exports", "RULES", "LEGACY_FIELDS"]
