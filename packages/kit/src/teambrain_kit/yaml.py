"""Safe YAML loading for files that come from a repository: no tags, no aliases, bounded."""

from __future__ import annotations

import datetime as dt
from io import StringIO
from typing import Any

__all__ = [
    "YamlProblem",
    "dump_yaml",
    "key_line",
    "load_yaml",
    "to_plain",
]

MAX_YAML_CHARS = 64 * 1024
MAX_YAML_DEPTH = 8


class YamlProblem(ValueError):
    """YAML that we refuse to load; ``line`` is 1-based within the YAML text, when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _yaml() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.allow_duplicate_keys = False
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.representer.add_representer(type(None), _represent_null)
    return yaml


def _represent_null(representer: Any, _data: None) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


class _EventGuard:
    """Inspects each parser event as the composer pulls it: anchors, aliases, explicit tags and
    deep nesting are refused before anything is built, in the same single pass as the load.

    Aliases are refused at the event, so a billion-laughs document is never expanded.
    """

    def __init__(self, get_event: Any, max_depth: int) -> None:
        from ruamel.yaml import events

        self._get_event = get_event
        self._events = events
        self._max_depth = max_depth
        self._depth = 0

    def __call__(self) -> Any:
        event = self._get_event()
        events = self._events
        line = event.start_mark.line + 1 if event.start_mark is not None else None
        if isinstance(event, events.AliasEvent):
            raise YamlProblem("aliases (*name) are not allowed", line)
        if getattr(event, "anchor", None):
            raise YamlProblem("anchors (&name) are not allowed", line)
        tag = getattr(event, "tag", None)
        if tag is not None and not (isinstance(event, events.ScalarEvent) and _implicit(event)):
            raise YamlProblem(f"explicit tags are not allowed ({tag})", line)
        if isinstance(event, (events.MappingStartEvent, events.SequenceStartEvent)):
            self._depth += 1
            if self._depth > self._max_depth:
                raise YamlProblem(f"nesting deeper than {self._max_depth} levels", line)
        elif isinstance(event, (events.MappingEndEvent, events.SequenceEndEvent)):
            self._depth -= 1
        return event


def _implicit(event: Any) -> bool:
    implicit = getattr(event, "implicit", (True, True))
    return bool(implicit and implicit[0])


def load_yaml(
    text: str, *, max_chars: int = MAX_YAML_CHARS, max_depth: int = MAX_YAML_DEPTH
) -> Any:
    """Parse ``text`` in round-trip mode after the safety checks (raises :class:`YamlProblem`)."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    if len(text) > max_chars:
        raise YamlProblem(f"YAML is {len(text)} characters; the limit is {max_chars}")
    try:
        constructor, parser = _yaml().get_constructor_parser(StringIO(text))
        parser.get_event = _EventGuard(parser.get_event, max_depth)
        return constructor.get_single_data()
    except YamlProblem:
        raise
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        raise YamlProblem(f"invalid YAML: {problem}", line) from None
    except YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid YAML"
        raise YamlProblem(f"invalid YAML: {first}") from None
    except RecursionError:
        raise YamlProblem("YAML nesting too deep") from None
    except (ValueError, IndexError) as exc:
        # ruamel's scalar constructors can fail on odd plain scalars (e.g. `._` resolves as a
        # float and then does not convert); still bad input, not a crash.
        detail = (
            "a number too long to read"  # int() of 4,300 digits or more
            if "integer string conversion" in str(exc)
            else str(exc).strip().splitlines()[0][:80]
            if str(exc).strip()
            else exc.__class__.__name__
        )
        raise YamlProblem(f"invalid YAML value ({detail})", _failing_scalar_line(text)) from None


def _failing_scalar_line(text: str) -> int | None:
    """The 1-based line of the first scalar that cannot be constructed (a failure path only:
    the document already passed the event guard, so composing it again is safe)."""
    from ruamel.yaml import nodes

    yaml = _yaml()
    try:
        root = yaml.compose(StringIO(text))
    except Exception:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.ScalarNode):
            try:
                yaml.constructor.construct_object(node, deep=True)
            except (ValueError, IndexError, TypeError):
                return int(node.start_mark.line) + 1
        elif isinstance(node, nodes.MappingNode):
            stack.extend(item for pair in reversed(node.value) for item in reversed(pair))
        elif isinstance(node, nodes.SequenceNode):
            stack.extend(reversed(node.value))
    return None


def dump_yaml(data: Any) -> str:
    """Serialise round-trip data (comments and order kept) to text."""
    stream = StringIO()
    _yaml().dump(data, stream)
    return stream.getvalue()


def to_plain(value: Any) -> Any:
    """Round-trip containers and scalars as plain dict/list/str/int/float/bool/date values."""
    if isinstance(value, dict):
        return {str(key): to_plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [to_plain(item) for item in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, dt.datetime):
        return dt.datetime(*value.timetuple()[:6], value.microsecond, tzinfo=value.tzinfo)
    if isinstance(value, dt.date):
        return dt.date(value.year, value.month, value.day)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    return value


def key_line(mapping: Any, key: str) -> int | None:
    """1-based line of ``key`` in a round-trip mapping, when ruamel recorded it."""
    try:
        return int(mapping.lc.key(key)[0]) + 1
    except (AttributeError, KeyError, TypeError):
        return None
