"""The namespace every pack's ``pack.py`` is imported under: ``strata.packs.imported.<pack>``.
A private name cannot shadow the pack's own distribution (``strata_pack_hello`` stays the
installed package) nor any other module."""
