"""teambrain sync: git plumbing for proposal branches, PRs, retirement and time travel."""

__all__: list[str] = []
