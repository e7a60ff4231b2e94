"""What every verb shares: where it runs (the repository, the brain, the machine-local home) and
how it prints (data on stdout, messages on stderr)."""
