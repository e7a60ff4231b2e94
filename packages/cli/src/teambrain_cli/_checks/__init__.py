"""Checks with evidence: the privacy self-audit (``tb verify``: provenance, the sync-isolation
probe, the OS sandbox, the scratch repository they run in) and readiness (``tb doctor``)."""
