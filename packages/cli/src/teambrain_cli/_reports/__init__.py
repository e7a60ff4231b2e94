"""Reports on this machine's agent sessions and the brain: the digest aggregation with its
small-cell suppression, its time window, renderers and Slack delivery (``tb digest``), and the
health snapshot (``tb metrics``) with the component status it shares with ``tb doctor``."""
