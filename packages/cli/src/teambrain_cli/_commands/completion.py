"""``tb completion``: the shell completion script for bash, zsh or fish."""

from __future__ import annotations

import click

from .._console.choice import Choice

SHELLS = ("bash", "zsh", "fish")


@click.command("completion")
@click.argument("shell", type=Choice(SHELLS), metavar="SHELL")
def command(shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish): verbs, options, tool names.

    \b
    Examples:
      eval "$(tb completion bash)"                 in ~/.bashrc
      eval "$(tb completion zsh)"                  in ~/.zshrc
      tb completion fish > ~/.config/fish/completions/tb.fish
    """
    from click.shell_completion import get_completion_class

    from .._main import cli

    completion = get_completion_class(shell)
    assert completion is not None  # the three shells click ships
    click.echo(completion(cli, {}, "tb", "_TB_COMPLETE").source())
