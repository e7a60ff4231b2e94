"""``--jq EXPR``: a small subset of the jq language, enough for what gh's ``--jq`` is used for
(pick fields, filter, count, reshape, format a line), with no jq installed and no dependency.

Supported: ``.``, ``.a.b``, ``.["a"]``, ``.[N]``, ``.[M:N]``, ``.[]``, ``?``, ``|``, ``,``,
``//``, ``and``/``or``/``not``, ``==`` ``!=`` ``<`` ``<=`` ``>`` ``>=``, ``+`` ``-`` ``*`` ``/``, literals
(numbers, strings with ``\\(…)`` interpolation, true, false, null), ``[…]``, ``{a, b: …, "c": …,
(k): …}``, ``(…)``, ``..``, and the functions ``select map length keys values has join split
test contains startswith endswith ascii_downcase ascii_upcase ltrimstr rtrimstr tostring
tonumber type first last reverse sort sort_by unique unique_by group_by min max add any all
empty not to_entries from_entries with_entries range limit``. Anything else is an error naming
what is not supported. Strings a filter yields print raw, other values as compact JSON — as
``gh --jq`` prints them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

from teambrain_schema import UserError

Filter = Callable[[Any], Iterator[Any]]
_TOKEN = re.compile(
    r"""\s*(?:
      (?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
    | (?P<str>")
    | (?P<op>\.\.|//|==|!=|<=|>=|[.\[\](){}|,:;<>+\-*/?])
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    )""",
    re.VERBOSE,
)
MAX_EXPRESSION = 2000


class JqError(UserError):
    """A --jq expression that cannot be read or run (exit 1)."""


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _order(value: Any) -> tuple[int, Any]:
    """jq's ordering: null < false < true < numbers < strings < arrays < objects."""
    kind = _type(value)
    rank = {"null": 0, "boolean": 1, "number": 3, "string": 4, "array": 5, "object": 6}[kind]
    if kind == "boolean":
        return (1 if not value else 2, 0)
    if kind == "array":
        return (rank, [_order(v) for v in value])
    if kind == "object":
        return (rank, sorted((k, _order(v)) for k, v in value.items()))
    return (rank, value if value is not None else 0)


def _truthy(value: Any) -> bool:
    return value is not None and value is not False


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, Any]] = []
        position = 0
        while position < len(text):
            if text[position:].strip() == "":
                break
            found = _TOKEN.match(text, position)
            if found is None or found.end() == position:
                raise JqError(f"--jq: cannot read {text[position : position + 20]!r}")
            kind = found.lastgroup or ""
            if kind == "str":
                start = found.end() - 1
                value, position = self._string(start)
                self.tokens.append(("str", value))
                continue
            self.tokens.append((kind, found.group(kind)))
            position = found.end()
        self.index = 0

    def _string(self, start: int) -> tuple[list[str | Filter], int]:
        """A string literal at ``start`` (its opening quote): its parts, text and ``\\(…)``."""
        parts: list[str | Filter] = []
        buffer: list[str] = []
        position = start + 1
        escapes = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "/": "/", "b": "\b",
                   "f": "\f"}  # fmt: skip
        while position < len(self.text):
            char = self.text[position]
            if char == '"':
                parts.append("".join(buffer))
                return parts, position + 1
            if char == "\\" and position + 1 < len(self.text):
                following = self.text[position + 1]
                if following == "(":
                    depth, end = 1, position + 2
                    while end < len(self.text) and depth:
                        depth += {"(": 1, ")": -1}.get(self.text[end], 0)
                        end += 1
                    if depth:
                        break
                    parts.append("".join(buffer))
                    buffer = []
                    parts.append(compile_jq(self.text[position + 2 : end - 1]))
                    position = end
                    continue
                if following == "u" and position + 5 < len(self.text):
                    buffer.append(chr(int(self.text[position + 2 : position + 6], 16)))
                    position += 6
                    continue
                buffer.append(escapes.get(following, following))
                position += 2
                continue
            buffer.append(char)
            position += 1
        raise JqError("--jq: a string is never closed")

    def peek(self, *values: str) -> bool:
        if self.index >= len(self.tokens):
            return False
        kind, value = self.tokens[self.index]
        return kind in ("op", "name") and value in values

    def take(self, value: str) -> None:
        if not self.peek(value):
            got = self.tokens[self.index][1] if self.index < len(self.tokens) else "the end"
            raise JqError(f"--jq: expected {value!r}, found {got!r}")
        self.index += 1

    def parse(self) -> Filter:
        found = self.pipe()
        if self.index != len(self.tokens):
            raise JqError(f"--jq: unexpected {self.tokens[self.index][1]!r}")
        return found

    def pipe(self) -> Filter:
        left = self.comma()
        while self.peek("|"):
            self.take("|")
            right = self.comma()
            left = _then(left, right)
        return left

    def comma(self) -> Filter:
        left = self.alternative()
        while self.peek(","):
            self.take(",")
            right = self.alternative()
            left = _comma(left, right)
        return left

    def alternative(self) -> Filter:
        left = self.disjunction()
        while self.peek("//"):
            self.take("//")
            right = self.disjunction()

            left = _alternative(left, right)
        return left

    def disjunction(self) -> Filter:
        left = self.conjunction()
        while self.peek("or"):
            self.take("or")
            right = self.conjunction()
            left = _either(left, right)
        return left

    def conjunction(self) -> Filter:
        left = self.comparison()
        while self.peek("and"):
            self.take("and")
            right = self.comparison()
            left = _both(left, right)
        return left

    def comparison(self) -> Filter:
        left = self.additive()
        for op in ("==", "!=", "<=", ">=", "<", ">"):
            if self.peek(op):
                self.take(op)
                right = self.additive()
                test: Callable[[Any, Any], bool] = {
                    "==": lambda a, b: a == b and _type(a) == _type(b),
                    "!=": lambda a, b: not (a == b and _type(a) == _type(b)),
                    "<": lambda a, b: _order(a) < _order(b),
                    "<=": lambda a, b: _order(a) <= _order(b),
                    ">": lambda a, b: _order(a) > _order(b),
                    ">=": lambda a, b: _order(a) >= _order(b),
                }[op]
                return _binary(left, right, test)
        return left

    def additive(self) -> Filter:
        left = self.multiplicative()
        while self.peek("+", "-"):
            op = self.tokens[self.index][1]
            self.index += 1
            right = self.multiplicative()
            left = _binary(left, right, _arithmetic(op))
        return left

    def multiplicative(self) -> Filter:
        left = self.postfix()
        while self.peek("*", "/"):
            op = self.tokens[self.index][1]
            self.index += 1
            right = self.postfix()
            left = _binary(left, right, _arithmetic(op))
        return left

    def postfix(self) -> Filter:
        found = self.primary()
        while True:
            following = self.tokens[self.index + 1][0] if self.index + 1 < len(self.tokens) else ""
            if self.peek(".") and following in ("name", "str"):
                self.take(".")
                found = _then(found, self._field())
            elif self.peek("["):
                found = _then(found, self._bracket())
            elif self.peek("?"):
                self.take("?")
                found = _optional(found)
            else:
                return found

    def _field(self) -> Filter:
        kind, value = self.tokens[self.index]
        self.index += 1
        name = value if kind == "name" else _literal_string(value)
        return lambda v: iter([_index(v, name)])

    def _bracket(self) -> Filter:
        self.take("[")
        if self.peek("]"):
            self.take("]")
            return _iterate
        start: Filter | None = None
        if not self.peek(":"):
            start = self.pipe()
        if self.peek(":"):
            self.take(":")
            end = None if self.peek("]") else self.pipe()
            self.take("]")
            return lambda v: (_slice(v, a, b) for a in (start(v) if start else [None])
                              for b in (end(v) if end else [None]))  # fmt: skip
        self.take("]")
        assert start is not None
        return lambda v: (_index(v, key) for key in start(v))

    def primary(self) -> Filter:
        if self.index >= len(self.tokens):
            raise JqError("--jq: the expression ends too early")
        kind, value = self.tokens[self.index]
        if kind == "num":
            self.index += 1
            number = float(value) if any(c in value for c in ".eE") else int(value)
            return lambda v: iter([number])
        if kind == "str":
            self.index += 1
            return _string_filter(value)
        if kind == "op" and value == "..":
            self.index += 1
            return _recurse
        if kind == "op" and value == ".":
            self.index += 1
            if self.index < len(self.tokens) and self.tokens[self.index][0] in ("name", "str"):
                return self._field()
            if self.peek("["):
                return self._bracket()
            return lambda v: iter([v])
        if kind == "op" and value == "(":
            self.take("(")
            inner = self.pipe()
            self.take(")")
            return inner
        if kind == "op" and value == "[":
            self.take("[")
            if self.peek("]"):
                self.take("]")
                return lambda v: iter([[]])
            inner = self.pipe()
            self.take("]")
            return lambda v: iter([list(inner(v))])
        if kind == "op" and value == "{":
            return self._object()
        if kind == "op" and value == "-":
            self.index += 1
            operand = self.postfix()
            return lambda v: (_arith("-", 0, x) for x in operand(v))
        if kind == "name":
            self.index += 1
            return self._function(value)
        raise JqError(f"--jq: unexpected {value!r}")

    def _object(self) -> Filter:
        self.take("{")
        entries: list[tuple[Filter, Filter]] = []
        while not self.peek("}"):
            if self.index >= len(self.tokens):
                raise JqError("--jq: the expression ends too early")
            kind, value = self.tokens[self.index]
            if kind in {"name", "str"}:
                self.index += 1
                key_text = value if kind == "name" else _literal_string(value)
                key: Filter = _const(key_text)
                if self.peek(":"):
                    self.take(":")
                    entry = self.alternative()
                else:
                    entry = _key(key_text)
            elif kind == "op" and value == "(":
                self.take("(")
                key = self.pipe()
                self.take(")")
                self.take(":")
                entry = self.alternative()
            else:
                raise JqError(f"--jq: unexpected {value!r} in an object")
            entries.append((key, entry))
            if not self.peek("}"):
                self.take(",")
        self.take("}")

        def build(v: Any) -> Iterator[Any]:
            results: list[dict[str, Any]] = [{}]
            for key, entry in entries:
                grown = []
                for partial in results:
                    for k in key(v):
                        if not isinstance(k, str):
                            raise JqError(f"--jq: an object key must be a string, not {_type(k)}")
                        for value in entry(v):
                            grown.append({**partial, k: value})
                results = grown
            return iter(results)

        return build

    def _arguments(self) -> list[Filter]:
        if not self.peek("("):
            return []
        self.take("(")
        found = [self.pipe()]
        while self.peek(";"):
            self.take(";")
            found.append(self.pipe())
        self.take(")")
        return found

    def _function(self, name: str) -> Filter:
        if name in ("true", "false", "null"):
            literal = {"true": True, "false": False, "null": None}[name]
            return lambda v: iter([literal])
        args = self._arguments()
        builder = _FUNCTIONS.get((name, len(args)))
        if builder is None:
            raise JqError(
                f"--jq: {name}/{len(args)} is not supported (`tb help list` lists what is)"
            )
        return builder(*args)


def _literal_string(parts: list[str | Filter]) -> str:
    if any(not isinstance(p, str) for p in parts):
        raise JqError("--jq: a key cannot interpolate")
    return "".join(p for p in parts if isinstance(p, str))


def _string_filter(parts: list[str | Filter]) -> Filter:
    def build(v: Any) -> Iterator[Any]:
        results = [""]
        for part in parts:
            if isinstance(part, str):
                results = [r + part for r in results]
            else:
                results = [r + _tostring(x) for r in results for x in part(v)]
        return iter(results)

    return build


def _tostring(value: Any) -> str:
    return (
        value
        if isinstance(value, str)
        else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    )


def _then(first: Filter, second: Filter) -> Filter:
    """``first | second``."""
    return lambda v: (o for x in first(v) for o in second(x))


def _comma(first: Filter, second: Filter) -> Filter:
    """``first, second``: the outputs of one, then of the other."""
    return lambda v: (o for f in (first, second) for o in f(v))


def _alternative(first: Filter, second: Filter) -> Filter:
    """``first // second``: the truthy outputs of the first (errors count as none), else the
    second's."""

    def run(v: Any) -> Iterator[Any]:
        try:
            found = [x for x in first(v) if _truthy(x)]
        except JqError:
            found = []
        return iter(found) if found else second(v)

    return run


def _either(first: Filter, second: Filter) -> Filter:
    """``first or second`` (the second runs only when the first is false)."""
    return lambda v: (
        True if _truthy(a) else _truthy(b)
        for a in first(v)
        for b in ([True] if _truthy(a) else second(v))
    )


def _both(first: Filter, second: Filter) -> Filter:
    """``first and second`` (the second runs only when the first is true)."""
    return lambda v: (
        _truthy(a) and _truthy(b) for a in first(v) for b in (second(v) if _truthy(a) else [False])
    )


def _binary(first: Filter, second: Filter, operation: Callable[[Any, Any], Any]) -> Filter:
    """An operator of two filters: each pair of their outputs (the right one outermost, as jq)."""
    return lambda v: (operation(a, b) for b in second(v) for a in first(v))


def _arithmetic(op: str) -> Callable[[Any, Any], Any]:
    return lambda a, b: _arith(op, a, b)


def _const(value: Any) -> Filter:
    return lambda v: iter([value])


def _key(name: str) -> Filter:
    return lambda v: iter([_index(v, name)])


def _optional(inner: Filter) -> Filter:
    def run(v: Any) -> Iterator[Any]:
        try:
            return iter(list(inner(v)))
        except JqError:
            return iter([])

    return run


def _index(value: Any, key: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, dict) and isinstance(key, str):
        return value.get(key)
    if isinstance(value, list) and isinstance(key, (int, float)) and not isinstance(key, bool):
        position = int(key)
        if position < 0:
            position += len(value)
        return value[position] if 0 <= position < len(value) else None
    raise JqError(f"--jq: cannot index {_type(value)} with {_type(key)}")


def _slice(value: Any, start: Any, end: Any) -> Any:
    if value is None:
        return None
    if not isinstance(value, (list, str)):
        raise JqError(f"--jq: cannot slice {_type(value)}")
    begin = int(start) if isinstance(start, (int, float)) else None
    stop = int(end) if isinstance(end, (int, float)) else None
    return value[begin:stop]


def _iterate(value: Any) -> Iterator[Any]:
    if isinstance(value, list):
        return iter(value)
    if isinstance(value, dict):
        return iter(list(value.values()))
    raise JqError(f"--jq: cannot iterate over {_type(value)}")


def _recurse(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, (list, dict)):
        for child in value.values() if isinstance(value, dict) else value:
            yield from _recurse(child)


def _arith(op: str, a: Any, b: Any) -> Any:
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
    if op == "+":
        if a is None:
            return b
        if b is None:
            return a
        if (
            numbers
            or (isinstance(a, str) and isinstance(b, str))
            or (isinstance(a, list) and isinstance(b, list))
        ):
            return a + b
        if isinstance(a, dict) and isinstance(b, dict):
            return {**a, **b}
    elif op == "-":
        if numbers:
            return a - b
        if isinstance(a, list) and isinstance(b, list):
            return [x for x in a if x not in b]
    elif op == "*" and numbers:
        return a * b
    elif op == "/":
        if numbers:
            if b == 0:
                raise JqError("--jq: division by zero")
            result = a / b
            return (
                int(result)
                if result == int(result) and isinstance(a, int) and isinstance(b, int)
                else result
            )
        if isinstance(a, str) and isinstance(b, str):
            return a.split(b)
    raise JqError(f"--jq: cannot apply {op} to {_type(a)} and {_type(b)}")


def _length(value: Any) -> Any:
    if value is None:
        return 0
    if isinstance(value, bool):
        raise JqError("--jq: boolean has no length")
    if isinstance(value, (int, float)):
        return abs(value)
    return len(value)


def _each(f: Callable[[Any], Any]) -> Callable[[], Filter]:
    return lambda: lambda v: iter([f(v)])


def _need(kind: str, value: Any, what: str) -> None:
    if _type(value) != kind:
        _fail(kind, value, what)


def _fail(kind: str, value: Any, what: str) -> NoReturn:
    raise JqError(f"--jq: {what} needs a {kind}, not {_type(value)}")


def _sort_key(f: Filter) -> Callable[[Any], Any]:
    return lambda x: [_order(k) for k in f(x)]


def _regex(pattern: Any) -> re.Pattern[str]:
    if not isinstance(pattern, str):
        raise JqError("--jq: test() needs a string pattern")
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise JqError(f"--jq: bad pattern {pattern!r}: {exc}") from None


def _contains(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return b in a
    if isinstance(a, list) and isinstance(b, list):
        return all(any(_contains(x, y) for x in a) for y in b)
    if isinstance(a, dict) and isinstance(b, dict):
        return all(k in a and _contains(a[k], v) for k, v in b.items())
    if _type(a) != _type(b):
        raise JqError(f"--jq: cannot test whether {_type(a)} contains {_type(b)}")
    return bool(a == b)


def _keys(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return sorted(value)
    if isinstance(value, list):
        return list(range(len(value)))
    raise JqError(f"--jq: {_type(value)} has no keys")


def _select(f: Filter) -> Filter:
    return lambda v: (v for x in f(v) if _truthy(x))


def _map(f: Filter) -> Filter:
    return lambda v: iter([[o for x in _iterate(v) for o in f(x)]])


def _group(f: Filter) -> Filter:
    def run(v: Any) -> Iterator[Any]:
        _need("array", v, "group_by")
        groups: list[tuple[Any, list[Any]]] = []
        for item in sorted(v, key=_sort_key(f)):
            key = _sort_key(f)(item)
            if groups and groups[-1][0] == key:
                groups[-1][1].append(item)
            else:
                groups.append((key, [item]))
        return iter([[items for _, items in groups]])

    return run


def _unique_by(f: Filter) -> Filter:
    return lambda v: iter([[g[0] for g in next(_group(f)(v))]])


def _limit(n: Filter, f: Filter) -> Filter:
    def run(v: Any) -> Iterator[Any]:
        for count in n(v):
            out: list[Any] = []
            for x in f(v):
                if len(out) >= int(count):
                    break
                out.append(x)
            yield from out

    return run


def _range(*args: Filter) -> Filter:
    def run(v: Any) -> Iterator[Any]:
        bounds = [next(iter(a(v))) for a in args]
        if len(bounds) == 1:
            bounds = [0, bounds[0]]
        start, stop = bounds
        value = start
        while value < stop and value - start < 100_000:
            yield value
            value += 1

    return run


def _entries(v: Any) -> list[dict[str, Any]]:
    if isinstance(v, list):
        return [{"key": k, "value": x} for k, x in enumerate(v)]
    _need("object", v, "to_entries")
    return [{"key": k, "value": x} for k, x in v.items()]


def _from_entries(v: Any) -> dict[str, Any]:
    _need("array", v, "from_entries")
    out = {}
    for item in v:
        key = item.get("key", item.get("name", item.get("k"))) if isinstance(item, dict) else None
        if key is None:
            raise JqError("--jq: from_entries needs {key, value} objects")
        out[key if isinstance(key, str) else _tostring(key)] = item.get("value", item.get("v"))
    return out


def _reduce_add(v: Any) -> Any:
    total = None
    for item in _iterate(v):
        total = _arith("+", total, item)
    return total


_FUNCTIONS: dict[tuple[str, int], Callable[..., Filter]] = {
    ("select", 1): _select,
    ("map", 1): _map,
    ("empty", 0): lambda: (lambda v: iter([])),
    ("not", 0): _each(lambda v: not _truthy(v)),
    ("length", 0): _each(_length),
    ("keys", 0): _each(_keys),
    ("values", 0): lambda: _select(lambda v: iter([v is not None])),
    ("has", 1): lambda f: (lambda v: (k in v if isinstance(v, dict) else isinstance(k, int) and 0 <= k < len(v) for k in f(v))),
    ("join", 1): lambda f: (lambda v: ("".join("" if x is None else _tostring(x) if not isinstance(x, str) else x for x in _interleave(v, s)) for s in f(v))),
    ("split", 1): lambda f: (lambda v: (_arith("/", v, s) for s in f(v))),
    ("test", 1): lambda f: (lambda v: (bool(_regex(p).search(v)) if isinstance(v, str) else _fail("string", v, "test") for p in f(v))),
    ("contains", 1): lambda f: (lambda v: (_contains(v, x) for x in f(v))),
    ("startswith", 1): lambda f: (lambda v: (isinstance(v, str) and isinstance(x, str) and v.startswith(x) for x in f(v))),
    ("endswith", 1): lambda f: (lambda v: (isinstance(v, str) and isinstance(x, str) and v.endswith(x) for x in f(v))),
    ("ltrimstr", 1): lambda f: (lambda v: (v[len(x):] if isinstance(v, str) and isinstance(x, str) and v.startswith(x) else v for x in f(v))),
    ("rtrimstr", 1): lambda f: (lambda v: (v[: len(v) - len(x)] if isinstance(v, str) and isinstance(x, str) and x and v.endswith(x) else v for x in f(v))),
    ("ascii_downcase", 0): _each(lambda v: v.lower() if isinstance(v, str) else _fail("string", v, "ascii_downcase")),
    ("ascii_upcase", 0): _each(lambda v: v.upper() if isinstance(v, str) else _fail("string", v, "ascii_upcase")),
    ("tostring", 0): _each(_tostring),
    ("tonumber", 0): _each(lambda v: v if _type(v) == "number" else _number(v)),
    ("type", 0): _each(_type),
    ("first", 0): _each(lambda v: _index(v, 0)),
    ("last", 0): _each(lambda v: _index(v, -1)),
    ("first", 1): lambda f: (lambda v: iter(list(f(v))[:1])),
    ("reverse", 0): _each(lambda v: list(reversed(v)) if isinstance(v, (list, str)) else _fail("array", v, "reverse")),
    ("sort", 0): _each(lambda v: sorted(v, key=_order) if isinstance(v, list) else _fail("array", v, "sort")),
    ("sort_by", 1): lambda f: (lambda v: iter([sorted(v, key=_sort_key(f))])),
    ("unique", 0): _each(lambda v: [x for i, x in enumerate(sorted(v, key=_order)) if i == 0 or _order(x) != _order(sorted(v, key=_order)[i - 1])]),
    ("unique_by", 1): _unique_by,
    ("group_by", 1): _group,
    ("min", 0): _each(lambda v: min(v, key=_order) if v else None),
    ("max", 0): _each(lambda v: max(v, key=_order) if v else None),
    ("add", 0): _each(_reduce_add),
    ("any", 0): _each(lambda v: any(_truthy(x) for x in _iterate(v))),
    ("all", 0): _each(lambda v: all(_truthy(x) for x in _iterate(v))),
    ("to_entries", 0): _each(_entries),
    ("from_entries", 0): _each(_from_entries),
    ("with_entries", 1): lambda f: (lambda v: iter([_from_entries([o for x in _entries(v) for o in f(x)])])),
    ("range", 1): _range,
    ("range", 2): _range,
    ("limit", 2): _limit,
}  # fmt: skip


def _interleave(values: Any, separator: Any) -> Iterator[Any]:
    if not isinstance(values, list):
        raise JqError(f"--jq: join needs an array, not {_type(values)}")
    for index, value in enumerate(values):
        if index:
            yield separator
        if isinstance(value, (list, dict)):
            raise JqError(f"--jq: cannot join {_type(value)}")
        yield value


def _number(value: Any) -> Any:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise JqError(f"--jq: cannot parse {value!r} as a number") from None
    return int(number) if number.is_integer() and "." not in str(value) else number


def compile_jq(expression: str) -> Filter:
    """``expression`` as a filter; a :class:`JqError` (exit 1) for what it cannot read."""
    if len(expression) > MAX_EXPRESSION:
        raise JqError(f"--jq: the expression is longer than {MAX_EXPRESSION} characters")
    if not expression.strip():
        return lambda v: iter([v])
    try:
        return _Parser(expression).parse()
    except RecursionError:
        raise JqError("--jq: the expression is nested too deeply") from None


def run_jq(expression: str, data: Any) -> list[Any]:
    """Every value ``expression`` yields for ``data``."""
    program = compile_jq(expression)
    try:
        return list(program(data))
    except RecursionError:
        raise JqError("--jq: the expression recursed too deeply") from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        raise JqError(f"--jq: {exc}") from None


def format_results(results: list[Any]) -> str:
    """The lines ``--jq`` prints: a string as it is, anything else as compact JSON."""
    return "".join(
        (value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                          separators=(",", ":"))) + "\n"
        for value in results
    )  # fmt: skip
