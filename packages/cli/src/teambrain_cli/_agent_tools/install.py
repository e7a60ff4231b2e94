"""``tb install <tool>``: merge teambrain's MCP server and capture hooks into a tool's config.

Nothing the user has is removed or rewritten: other servers and hooks stay, JSONC comments and
key order stay, TOML layout stays. Our own entries are recognised (the server named
``teambrain``; handlers whose command is ``tb-capture <tool>``), so a second install changes
nothing. Every file is read and merged before anything is written; a file that does not parse
stops the install with one line naming it, and nothing is written.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teambrain_kit.atomic import write_text_atomic
from teambrain_schema import EnvironmentProblem

from .jsonc import MISSING, JsoncDocument, JsoncError
from .registry import HOOK_COMMAND, MCP_SERVER_NAME, Adapter, bundled_adapters_file

NEW_FILE_MODE = 0o644


class _Config:
    """One config file being edited: JSON, JSONC, TOML or YAML, with the same small interface."""

    def __init__(self, path: Path, display: str, fmt: str, before: str | None) -> None:
        self.path = path
        self.display = display
        self.format = fmt
        self.actions: list[str] = []
        self.before = before
        text = self.before if self.before is not None and self.before.strip() else None
        self._edited = False
        kind = {"yaml": "YAML", "toml": "TOML", "jsonc": "JSONC"}.get(fmt, "JSON")
        try:
            self._parse(text, fmt, kind)
        except RecursionError:  # a parser that recursed: 50,000 nested levels
            raise self.broken(f"not valid {kind} (nested too deeply)") from None
        except ValueError as exc:  # a parser's own error, or int() of 4,300+ digits
            why = "a number too long to read" if "digits" in str(exc) else _one_line(exc)
            raise self.broken(f"not valid {kind} ({why})") from None

    def _parse(self, text: str | None, fmt: str, kind: str) -> None:
        if fmt == "yaml":
            self._yaml, self._tree, self._yaml_head = _load_yaml(text or "", self)
            return
        if fmt == "toml":
            import tomlkit
            from tomlkit.exceptions import ParseError

            try:
                self._toml: Any = tomlkit.parse(text or "")
            except ParseError as exc:
                raise self.broken(f"not valid TOML ({exc})") from None
            return
        try:
            self._json = JsoncDocument(text or "{}\n", comments=fmt == "jsonc")
        except JsoncError as exc:
            raise self.broken(f"not valid {kind} ({exc})") from None
        if self._json.root.kind != "object":
            raise self.broken("expected a JSON object at the top level")

    def broken(self, why: str) -> EnvironmentProblem:
        """The one-line error for this file (exit 2); the install stops before writing."""
        return EnvironmentProblem(
            f"{self.display}: {why}; fix it and run `tb install` again (nothing was written)"
        )

    @property
    def text(self) -> str:
        if self.format == "yaml":
            if not self._edited:  # a YAML dump may reflow a file we did not change
                return self.before or ""
            import io

            out = io.StringIO()
            self._yaml.dump(self._tree, out)
            return self._yaml_head + out.getvalue()
        if self.format == "toml":
            import tomlkit

            text = str(tomlkit.dumps(self._toml))
            if text.endswith("\n\n") and not (self.before or "").endswith("\n\n"):
                text = text.rstrip("\n") + "\n"  # the blank line we add after a new table
            return text
        return self._json.text

    def get(self, path: list[str | int]) -> Any:
        if self.format not in ("toml", "yaml"):
            return self._json.get(path)
        node = self._toml if self.format == "toml" else self._tree
        for step in path:
            if isinstance(step, int):
                if not isinstance(node, list) or step >= len(node):
                    return MISSING
            elif not isinstance(node, dict) or step not in node:
                return MISSING
            node = node[step]
        return node.unwrap() if hasattr(node, "unwrap") else node

    def _toml_parent(self, path: list[str | int]) -> Any:
        """The TOML container holding ``path[-1]``, creating missing tables on the way."""
        import tomlkit

        node = self._toml
        for step in path[:-1]:
            if isinstance(step, str) and step not in node:
                node[step] = tomlkit.table(is_super_table=True)
            node = node[step]
        return node

    def set(self, path: list[str | int], value: Any) -> None:
        self._edited = True
        if self.format == "yaml":
            _yaml_parent(self._tree, path)[path[-1]] = _yaml_value(value)
            return
        if self.format != "toml":
            self._json.set(path, value)
            return
        import tomlkit

        node = self._toml_parent(path)
        item = _toml_value(value)
        if isinstance(item, tomlkit.items.Table) and not isinstance(node, list):
            item.add(tomlkit.nl())  # a blank line before whatever table follows
        node[path[-1]] = item

    def append(self, path: list[str | int], value: Any) -> None:
        self._edited = True
        if self.format == "yaml":
            from ruamel.yaml.comments import CommentedSeq

            parent = _yaml_parent(self._tree, path)
            if path[-1] not in parent:
                parent[path[-1]] = CommentedSeq()
            parent[path[-1]].append(_yaml_value(value))
            return
        if self.format != "toml":
            self._json.append(path, value)
            return
        import tomlkit

        parent = self._toml_parent(path)
        if path[-1] in parent:
            parent[path[-1]].append(_toml_value(value))
        else:
            array = tomlkit.aot()
            array.append(_toml_value(value))
            parent[path[-1]] = array


def _load_yaml(text: str, config: _Config) -> tuple[Any, Any, str]:
    """A round-trip YAML loader, the document in ``text`` (comments, key order and quoting
    kept; dumped with the indentation the file already uses), and the text to keep above it: a
    file of comments alone loads as nothing, and its comments stay."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError

    if _flow_depth(text) > MAX_YAML_FLOW_DEPTH:  # ruamel spends seconds on 50,000 `[`s
        raise config.broken(f"not valid YAML (nested more than {MAX_YAML_FLOW_DEPTH} levels)")
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line the user wrote on one line
    try:
        tree = yaml.load(text)
    except YAMLError as exc:
        why = " ".join(str(exc).split())
        raise config.broken(f"not valid YAML ({why[:200]})") from None
    head = ""
    if tree is None:
        # Nothing but comments (and a document start) is an empty file with notes; anything
        # else that loads as nothing is a null document (`~`, `Null`), not a mapping.
        lines = [line.strip() for line in text.splitlines()]
        if any(line and not line.startswith("#") and line != "---" for line in lines):
            raise config.broken("expected a mapping at the top level")
        tree, head = CommentedMap(), text if text.endswith("\n") or not text else text + "\n"
    if not isinstance(tree, dict):
        raise config.broken("expected a mapping at the top level")
    mapping, sequence, offset = _yaml_indents(text)
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    return yaml, tree, head


MAX_YAML_FLOW_DEPTH = 200


def _flow_depth(text: str) -> int:
    """How deep ``[`` and ``{`` nest in ``text`` outside quotes and comments (one linear pass:
    a file nested tens of thousands deep is refused before the YAML parser sees it). Only the
    characters that can change the answer are visited (a regular expression finds them)."""
    import re

    depth = deepest = 0
    quote = ""
    comment = False
    escaped_at = -1  # the position a backslash inside "..." escapes
    for match in re.finditer(r"""[\[\]{}'"#\\\n]""", text):
        at = match.start()
        char = text[at]
        if comment:
            comment = char != "\n"
        elif quote:
            if at == escaped_at:
                continue
            if char == "\\" and quote == '"':
                escaped_at = at + 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or text[at - 1] in " \t\n"):
            comment = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _yaml_indents(text: str) -> tuple[int, int, int]:
    """(mapping indent, sequence indent, dash offset) as the file writes them, else 2, 4, 2."""
    import re

    mapping = sequence = offset = None
    lines = text.splitlines()
    for number, line in enumerate(lines[:-1]):
        if not line.rstrip().endswith(":") or line.lstrip().startswith("#"):
            continue
        parent = len(line) - len(line.lstrip())
        child = next(
            (n for n in lines[number + 1 :] if n.strip() and not n.lstrip().startswith("#")), ""
        )
        depth = len(child) - len(child.lstrip())
        if depth <= parent:
            continue
        dash = re.match(r"( *)- ", child)
        if dash and offset is None:
            offset = depth - parent
            sequence = offset + 2
        elif not dash and mapping is None:
            mapping = depth - parent
    if offset is None and any(re.match(r"-\s", line) for line in lines):
        offset, sequence = 0, 2
    return mapping or 2, sequence or 4, offset if offset is not None else 2


def _yaml_parent(tree: Any, path: list[str | int]) -> Any:
    """The YAML container holding ``path[-1]``, creating missing mappings on the way."""
    from ruamel.yaml.comments import CommentedMap

    node = tree
    for step in path[:-1]:
        if isinstance(step, str) and step not in node:
            node[step] = CommentedMap()
        node = node[step]
    return node


def _yaml_value(value: Any) -> Any:
    """Dicts and lists as ruamel's commented containers (short lists of strings flow style, as
    people write `args: [serve]`)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict):
        mapping = CommentedMap()
        for key, item in value.items():
            mapping[key] = _yaml_value(item)
        return mapping
    if isinstance(value, list):
        seq = CommentedSeq(_yaml_value(item) for item in value)
        if all(isinstance(item, str) for item in value):
            seq.fa.set_flow_style()
        return seq
    return value


def _toml_value(value: Any) -> Any:
    """Dicts become tables and lists of dicts arrays of tables, as people write Codex config."""
    import tomlkit

    if isinstance(value, dict):
        table = tomlkit.table()
        for key, item in value.items():
            table[key] = _toml_value(item)
        return table
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        array = tomlkit.aot()
        for item in value:
            array.append(_toml_value(item))
        return array
    return value


@dataclass
class FileChange:
    """What installing does to one file."""

    path: Path
    display: str
    before: str | None
    after: str
    actions: list[str] = field(default_factory=list)
    mode: int = NEW_FILE_MODE  # for a file we create

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def status(self) -> str:
        if not self.changed:
            return "unchanged"
        return "create" if self.before is None else "update"

    def diff(self) -> str:
        """A unified diff of the change (empty when unchanged)."""
        if not self.changed:
            return ""
        before = (self.before or "").splitlines(keepends=True)
        after = self.after.splitlines(keepends=True)
        old = "/dev/null" if self.before is None else f"a/{self.display}"
        lines = difflib.unified_diff(before, after, old, f"b/{self.display}")
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass
class InstallPlan:
    """Everything ``tb install <tool>`` would do, computed before anything is written."""

    adapter: Adapter
    repo_root: Path
    files: list[FileChange]
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(change.changed for change in self.files)


def _is_ours(handler: object, adapter: Adapter) -> bool:
    if not isinstance(handler, dict):
        return False
    command = handler.get("command")
    words = command.split() if isinstance(command, str) else []
    return (
        len(words) >= 2 and os.path.basename(words[0]) == HOOK_COMMAND and words[1] == adapter.name
    )


def _merge_mcp(config: _Config, adapter: Adapter, notes: list[str]) -> None:
    key_path: list[str | int] = list(adapter.mcp.key.split("."))
    listed = adapter.mcp.servers == "list"
    servers = config.get(key_path)
    if servers is not MISSING and not isinstance(servers, list if listed else dict):
        kind = "a list" if listed else "an object"
        raise config.broken(f"`{adapter.mcp.key}` must be {kind}")
    for name, value in adapter.mcp.file_defaults.items():
        if config.get([name]) is MISSING:
            config.set([name], value)
            config.actions.append(f"set {name} = {value}")
    desired = adapter.mcp_entry()
    entry_path: list[str | int] = [*key_path, MCP_SERVER_NAME]
    existing: Any = MISSING
    if listed:
        for index, entry in enumerate(servers if isinstance(servers, list) else []):
            if isinstance(entry, dict) and entry.get("name") == MCP_SERVER_NAME:
                entry_path, existing = [*key_path, index], entry
                break
    elif isinstance(servers, dict):
        existing = servers.get(MCP_SERVER_NAME, MISSING)
    launch = " ".join(_launch_words(desired))
    if existing is MISSING:
        if listed:
            config.append(key_path, desired)
        else:
            config.set(entry_path, desired)
        config.actions.append(f"added MCP server `{MCP_SERVER_NAME}` ({launch})")
    elif _launches_ours(existing, desired):
        # Our entry from an older install: add or correct the fields we write, keep the rest.
        if any(existing.get(key) != value for key, value in desired.items()):
            config.set(entry_path, {**existing, **desired})
            config.actions.append(f"updated MCP server `{MCP_SERVER_NAME}` ({launch})")
    else:
        notes.append(
            f"{config.display}: kept your own `{MCP_SERVER_NAME}` server entry "
            f"(the default would be {desired})"
        )


def _launch_words(entry: dict[str, Any]) -> list[str]:
    """The command line an entry runs: ``command`` plus ``args``, or one ``command`` list."""
    command = entry.get("command")
    words = list(command) if isinstance(command, list) else [command]
    args = entry.get("args")
    return [str(word) for word in [*words, *(args if isinstance(args, list) else [])]]


def _launches_ours(entry: object, desired: dict[str, Any]) -> bool:
    """Is ``entry`` a teambrain entry ``tb install`` wrote (the same command line)?"""
    return isinstance(entry, dict) and _launch_words(entry) == _launch_words(desired)


def _merge_hooks(config: _Config, adapter: Adapter) -> None:
    assert adapter.hooks is not None
    wiring = adapter.hooks
    hooks = config.get(["hooks"])
    if hooks is not MISSING and not isinstance(hooks, dict):
        raise config.broken("`hooks` must be an object")
    for name, value in wiring.file_defaults.items():
        if config.get([name]) is MISSING:
            config.set([name], value)
    handler = adapter.hook_handler()
    added, updated = [], []
    for event in wiring.events:
        entries = hooks.get(event, MISSING) if isinstance(hooks, dict) else MISSING
        if entries is not MISSING and not isinstance(entries, list):
            raise config.broken(f"`hooks.{event}` must be a list")
        found: list[str | int] | None = None
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            if wiring.shape == "flat":
                if _is_ours(entry, adapter):
                    found = ["hooks", event, index]
                    break
                continue
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            for position, candidate in enumerate(inner if isinstance(inner, list) else []):
                if _is_ours(candidate, adapter):
                    found = ["hooks", event, index, "hooks", position]
                    break
            if found:
                break
        if found is None:
            matcher = wiring.matchers.get(event)
            group = {**({"matcher": matcher} if matcher else {}), "hooks": [handler]}
            config.append(["hooks", event], handler if wiring.shape == "flat" else group)
            added.append(event)
            continue
        current = config.get(found)
        # Only the fields we write are ours: a user's extra fields on our handler stay.
        if any(current.get(key) != value for key, value in handler.items()):
            config.set(found, {**current, **handler})
            updated.append(event)
    if added:
        config.actions.append(f"added hooks {', '.join(added)} ({adapter.hook_command})")
    if updated:
        config.actions.append(f"updated hooks {', '.join(updated)} ({adapter.hook_command})")


def _display(path: Path, repo_root: Path, home: Path) -> str:
    if path.is_relative_to(repo_root):
        return path.relative_to(repo_root).as_posix()
    if path.is_relative_to(home):
        return "~/" + path.relative_to(home).as_posix()
    return str(path)


def adapter_notes(adapter: Adapter) -> str | None:
    """The ``notes`` of ``adapter`` in the bundled ``adapters.yaml``, if any."""
    from teambrain_schema import AdaptersFile
    from teambrain_schema.brain import ConfigProblem, load_config_file

    path = bundled_adapters_file()
    try:
        loaded = load_config_file(AdaptersFile, path, path.parent)
    except (OSError, ConfigProblem):
        return None
    return next((spec.notes for spec in loaded.adapters if spec.name == adapter.name), None)


def plan_install(
    adapter: Adapter, repo_root: Path, *, home: Path | None = None, confirm: Confirm | None = None
) -> InstallPlan:
    """Read and merge every file ``adapter`` needs; raises :class:`EnvironmentProblem` (exit 2)
    naming the first file that cannot be merged. Nothing is written.

    A file of the repository that a symlink leads outside of it is written only if ``confirm``
    (the question, on a terminal) says yes; without ``confirm`` it stops the install.
    """
    user_home = home or Path.home()
    configs: dict[Path, _Config] = {}

    def open_config(relpath: str, fmt: str) -> _Config:
        located = _located(relpath, repo_root, user_home)
        # The file a symlink points at is edited and the link kept (dotfiles), but only a
        # regular file, and never outside the repository through a committed link unasked.
        path, before = _write_target(located, repo_root, user_home, confirm)
        if path not in configs:
            configs[path] = _Config(path, _display(path, repo_root, user_home), fmt, before)
        return configs[path]

    notes: list[str] = []
    mcp_path = adapter.mcp.path
    if adapter.mcp.alternate_path and (repo_root / adapter.mcp.alternate_path).is_file():
        mcp_path = adapter.mcp.alternate_path
        notes.append(f"the server goes into the existing {mcp_path}")
    _merge_mcp(open_config(mcp_path, adapter.mcp.format), adapter, notes)
    scripts: list[FileChange] = []
    if adapter.hooks is not None and adapter.hooks.shape == "script":
        scripts = _hook_scripts(adapter, repo_root, user_home, notes, confirm)
    elif adapter.hooks is not None and adapter.hooks.shape == "plugin":
        scripts = [_hook_plugin(adapter, repo_root, user_home, notes, confirm)]
    elif adapter.hooks is not None:
        wiring = adapter.hooks
        hooks_path, hooks_format = wiring.path, wiring.format
        alternate = wiring.alternate_path
        if alternate and (repo_root / alternate).is_file():
            hooks_path, hooks_format = alternate, "toml" if alternate.endswith(".toml") else "json"
            notes.append(f"hooks go into the existing {alternate} (one hooks file per layer)")
        _merge_hooks(open_config(hooks_path, hooks_format), adapter)
    files = [
        FileChange(config.path, config.display, config.before, config.text, config.actions)
        for config in configs.values()
    ]
    return InstallPlan(adapter, repo_root, files + scripts, notes)


SCRIPT_SUFFIXES = ("", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".py", ".ps1")


def hook_script(adapter: Adapter, event: str) -> str:
    """The executable ``tb install`` writes for one event of a tool whose hooks are files."""
    return (
        "#!/bin/sh\n"
        f"# teambrain: records this {adapter.title} {event} event (written by `tb install "
        f"{adapter.name}`; see `tb audit`).\n"
        f"exec {adapter.hook_command}\n"
    )


def _located(relpath: str, repo_root: Path, home: Path) -> Path:
    """A wiring path: ``~/…`` under the user's home, anything else under the repository."""
    return home / relpath[2:] if relpath.startswith("~/") else repo_root / relpath


Confirm = Callable[[str], bool]
# ~/.claude.json keeps every project's history and grows to megabytes; no config is larger.
MAX_CONFIG_FILE_BYTES = 64 * 1024 * 1024


def _write_target(
    path: Path, repo_root: Path, home: Path, confirm: Confirm | None
) -> tuple[Path, str | None]:
    """The file an edit of ``path`` writes, and its text now (None: it does not exist yet).

    Symlinks are followed (a dotfiles link stays a link), but a repository file is written
    outside the repository through a link — committed by anyone — only after ``confirm`` said
    yes, and only a regular file is ever read or replaced: a link to a device, a FIFO or a
    socket stops the install with one line (a FIFO would block it, ``/dev/zero`` never end,
    and as root a device would be replaced by a file). Raises :class:`EnvironmentProblem`.
    """
    from teambrain_kit.local_files import FileTooLarge, NotARegularFile, read_local_bytes

    display = _display(path, repo_root, home)
    real = Path(os.path.realpath(path))
    git_dir = repo_root.resolve() / ".git"
    if path.is_relative_to(repo_root) and (real == git_dir or real.is_relative_to(git_dir)):
        # .git/config, .git/info/exclude…: git's own files, never an agent tool's config
        raise EnvironmentProblem(
            f"{display} is a link into the repository's .git folder (to {real}): nothing was "
            "written; remove the link"
        )
    if path.is_relative_to(repo_root) and not real.is_relative_to(repo_root.resolve()):
        question = (
            f"{display} is a link that leads outside the repository, to {real}: "
            "write teambrain's entries there?"
        )
        if confirm is None or not confirm(question):
            raise EnvironmentProblem(
                f"{display} leads outside the repository through a link (to {real}): nothing "
                "was written; remove the link, or run `tb install` on a terminal to be asked"
            )
    try:
        data = read_local_bytes(real, max_bytes=MAX_CONFIG_FILE_BYTES)
    except FileNotFoundError:
        return real, None
    except NotARegularFile as exc:
        via = f" (through a link to {real})" if real != path else ""
        kind = str(exc).removesuffix(", not a file")
        raise EnvironmentProblem(
            f"{display} is {kind}{via}, not a config file: nothing was written"
        ) from None
    except FileTooLarge:
        raise EnvironmentProblem(
            f"{display}: larger than {MAX_CONFIG_FILE_BYTES // 1024**2} MB, not a config "
            "file: nothing was written"
        ) from None
    except OSError as exc:
        raise EnvironmentProblem(f"{display}: cannot read ({exc.strerror or exc})") from None
    try:
        return real, data.decode("utf-8")
    except UnicodeDecodeError:
        raise EnvironmentProblem(
            f"{display}: not UTF-8 text; fix it and run `tb install` again (nothing was written)"
        ) from None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] or exc.__class__.__name__


def _owned_text(
    path: Path, repo_root: Path, home: Path, confirm: Confirm | None
) -> tuple[Path, str | None]:
    """A hook file's real path and text (None when there is none; "" when it is not UTF-8,
    then it is not ours, whatever it is). Raises as :func:`_write_target` does."""
    try:
        return _write_target(path, repo_root, home, confirm)
    except EnvironmentProblem as exc:
        if "not UTF-8" not in exc.message:
            raise
        return Path(os.path.realpath(path)), ""


def plugin_source(adapter: Adapter) -> str:
    """The plugin file ``tb install`` writes for a tool whose hooks are a plugin: the opencode
    plugin shipped in ``teambrain_cli/plugins/`` (Kilo Code, a fork, loads the same), naming the
    tool."""
    from importlib import resources

    template = resources.files("teambrain_cli") / "plugins" / "opencode-plugin.js"
    text = template.read_text("utf-8")
    return text.replace("__TOOL__", adapter.name).replace("__TITLE__", adapter.title)


def _hook_plugin(
    adapter: Adapter, repo_root: Path, home: Path, notes: list[str], confirm: Confirm | None
) -> FileChange:
    """The tool's plugin file: written when missing, updated when it is ours and older, and a
    file of the user's own at that path is left alone."""
    assert adapter.hooks is not None
    path, before = _owned_text(
        _located(adapter.hooks.path, repo_root, home), repo_root, home, confirm
    )
    display = _display(path, repo_root, home)
    wanted = plugin_source(adapter)
    events = ", ".join(adapter.hooks.events)
    if before is None:
        return FileChange(path, display, None, wanted, [f"added the capture plugin ({events})"])
    if adapter.hook_command not in before:
        notes.append(f"{display}: kept your own file; the capture plugin was not installed")
        return FileChange(path, display, before, before)
    if before == wanted:
        return FileChange(path, display, before, before)
    return FileChange(path, display, before, wanted, ["updated the capture plugin"])


def _hook_scripts(
    adapter: Adapter, repo_root: Path, home: Path, notes: list[str], confirm: Confirm | None
) -> list[FileChange]:
    """One executable per event in the tool's hooks folder. A tool runs one file per event, so
    a user's own hook for an event is never replaced: the note says how to add ours to it."""
    assert adapter.hooks is not None
    folder = adapter.hooks.path
    base = _located(folder, repo_root, home)
    changes = []
    for event in adapter.hooks.events:
        theirs = [
            candidate
            for candidate in (base / f"{event}{suffix}" for suffix in SCRIPT_SUFFIXES)
            if candidate.is_file() or candidate.is_symlink()
        ]
        path, before = _owned_text(base / event, repo_root, home, confirm)
        display = _display(path, repo_root, home)
        wanted = hook_script(adapter, event)
        if before is None and not theirs:
            changes.append(FileChange(path, display, None, wanted, [f"added hook {event} ({adapter.hook_command})"], 0o755))  # fmt: skip
        elif before is not None and adapter.hook_command in before:
            changes.append(FileChange(path, display, before, before))  # ours: never rewritten
        else:
            shown = _display(theirs[0] if theirs else path, repo_root, home)
            notes.append(
                f"{shown}: kept your own {event} hook; to record this event too, make it run "
                f"`{adapter.hook_command}` with the same input"
            )
    return changes


def apply_install(plan: InstallPlan) -> list[Path]:
    """Write the files ``plan`` changes (atomically, keeping their permissions)."""
    written = []
    for change in plan.files:
        if not change.changed:
            continue
        mode = change.path.stat().st_mode & 0o777 if change.path.exists() else change.mode
        write_text_atomic(change.path, change.after, mode=mode)
        written.append(change.path)
    return written
