"""The driver interface and its registry: the built-in drivers are this package's
``teambrain.drivers`` entry points (pyproject.toml), the same mechanism plugins use, each a
:class:`BuiltinDriver` at the bottom of this module; :func:`register_driver` adds or replaces one
in this process.

A driver turns one :class:`Request` into a validated instance of the answer's schema, within
the attempts an :class:`AttemptGuard` allows. Real drivers import their SDK lazily, inside
their own module, so ``import teambrain_distill`` stays light and the fake needs no SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel
from teambrain_schema import DistillConfig

from ._budget import AttemptGuard
from ._default_urls import ANTHROPIC_DEFAULT_URL, OLLAMA_DEFAULT_URL, OPENAI_DEFAULT_URL
from ._request import Request

if TYPE_CHECKING:
    from teambrain_kit.egress import Egress

ModelT = TypeVar("ModelT", bound=BaseModel)


class Driver(Protocol):
    """Sends requests to one kind of model."""

    name: str

    def generate(
        self,
        request: Request,
        schema: type[ModelT],
        *,
        guard: AttemptGuard,
        context: dict[str, Any] | None = None,
    ) -> ModelT:
        """The model's answer to ``request``, validated against ``schema`` (with ``context``
        passed to its validators); invalid answers are re-asked while ``guard`` allows."""
        ...


class PluginDriver:
    """What a driver plugin built, held to the :class:`Driver` contract: a teambrain error it
    raises passes as it is; any other failure (``sys.exit`` included) is a one-line
    :class:`ModelUnavailable` naming the plugin, and what it prints goes to stderr."""

    def __init__(self, inner: Any, label: str) -> None:
        from teambrain_schema import UserError

        name = getattr(inner, "name", None)
        if not isinstance(name, str) or not callable(getattr(inner, "generate", None)):
            raise UserError(
                f"distill.plugin: {label} built {type(inner).__name__}, not a driver "
                "(it needs a name and generate)"
            )
        self.name = name
        self.label = label
        self._inner = inner

    def generate(
        self,
        request: Request,
        schema: type[ModelT],
        *,
        guard: AttemptGuard,
        context: dict[str, Any] | None = None,
    ) -> ModelT:
        from teambrain_kit.plugins import PluginProblem, plugin_call
        from teambrain_schema import TeambrainError

        from ._errors import ModelUnavailable

        def call() -> ModelT:
            answer: ModelT = self._inner.generate(request, schema, guard=guard, context=context)
            return answer

        try:
            return plugin_call(self.label, call, passes=(TeambrainError,))
        except PluginProblem as exc:
            raise ModelUnavailable(exc.message) from None


# (config, brain directory ``.teambrain/`` or None) -> driver
DriverFactory = Callable[[DistillConfig, Path | None], Driver]
DISTRIBUTION = "teambrain-distill"
_REGISTRY: dict[str, DriverFactory] = {}


def register_driver(name: str, factory: DriverFactory) -> None:
    """Make ``distill.driver: <name>`` build drivers with ``factory`` in this process; it wins
    over a built-in of that name, and a later registration replaces an earlier one (tests use
    that to inject mocked HTTP transports)."""
    _REGISTRY[name] = factory


def _builtin_drivers() -> tuple[str, ...]:
    from teambrain_kit.plugins import DRIVERS_GROUP, builtin_names

    return builtin_names(DRIVERS_GROUP, DISTRIBUTION)


def _driver_factory(name: str) -> DriverFactory | None:
    factory = _REGISTRY.get(name)
    if factory is not None or name not in _builtin_drivers():
        return factory
    from teambrain_kit.plugins import DRIVERS_GROUP, load_builtin

    built_in: DriverFactory = load_builtin(DRIVERS_GROUP, DISTRIBUTION, name)
    return built_in


NO_MODEL = (
    "no model configured: set distill.driver and distill.model in .teambrain/brain.yaml "
    "(a local one such as ollama, or a hosted one: anthropic, openai; `tb help distill-guide`)"
)


def driver_names() -> list[str]:
    """The driver names: the built-in ones and those registered in this process."""
    return sorted({*_builtin_drivers(), *_REGISTRY})


def make_driver(config: DistillConfig, brain_dir: Path | None) -> Driver:
    """The driver brain.yaml pins, built from the registry (or, with ``distill.plugin``, from
    the package that provides it through the ``teambrain.drivers`` entry point)."""
    if config.plugin is not None:
        from teambrain_kit.plugins import DRIVERS_GROUP, PluginProblem, load_plugin, plugin_call
        from teambrain_schema import UserError

        label = f"{DRIVERS_GROUP} plugin {config.plugin!r}"
        try:
            plugin: DriverFactory = load_plugin(DRIVERS_GROUP, config.plugin)
            built = plugin_call(label, plugin, config, brain_dir, bounded=True)
        except PluginProblem as exc:
            raise UserError(f"distill.plugin: {exc.message}") from None
        return PluginDriver(built, label)
    if config.driver == "none":
        from teambrain_schema import EnvironmentProblem

        raise EnvironmentProblem(NO_MODEL)
    factory = _driver_factory(config.driver)
    if factory is None:
        from teambrain_schema import UserError

        raise UserError(
            f"distill.driver: unknown driver {config.driver!r} (known: {', '.join(driver_names())})"
        )
    return factory(config, brain_dir)


DRIVER_SENDS = "captured session summaries and the brain's memories"


def driver_egress(config: DistillConfig) -> Egress | None:
    """Where the driver ``config`` pins sends what it distills (and with which credential), or
    None for the fake driver, which only replays recorded answers. A plugin driver counts as
    sending: it receives ``base_url`` and ``api_key_env`` and its code is not ours to know."""
    from teambrain_kit.egress import Egress, normalise_url

    if config.plugin is not None:
        extra = (f"base_url {normalise_url(config.base_url)}",) if config.base_url else ()
        return Egress("distill", DRIVER_SENDS, f"plugin {config.plugin}", config.api_key_env, extra)
    if config.driver == "none":
        return None
    built_in = builtin_driver(config.driver)
    if built_in is not None and built_in.default_url is None:
        return None  # the fake driver: nothing leaves
    default = built_in.default_url if built_in is not None else None
    destination = normalise_url(config.base_url or default or f"driver {config.driver}")
    return Egress("distill", DRIVER_SENDS, destination, config.api_key_env)


class BuiltinDriver:
    """A built-in driver, as this package's ``teambrain.drivers`` entry point names it: a
    :data:`DriverFactory`, plus what the rest of teambrain asks about it without building one
    (so a new driver is written down in its entry, not in a table per question)."""

    def __init__(
        self, build: DriverFactory, *, default_url: str | None, client: str | None
    ) -> None:
        self.build = build
        # Where it sends when distill.base_url is unset (None: nothing leaves this machine).
        self.default_url = default_url
        # The module its SDK installs, imported when it sends (tb doctor checks it imports);
        # installed by the teambrain-cli / teambrain-distill extra of the driver's name.
        self.client = client

    def __call__(self, config: DistillConfig, brain_dir: Path | None) -> Driver:
        return self.build(config, brain_dir)


def builtin_driver(name: str) -> BuiltinDriver | None:
    """The built-in driver ``distill.driver: <name>`` selects (None for ``none`` and names this
    package does not declare)."""
    if name not in _builtin_drivers():
        return None
    from teambrain_kit.plugins import DRIVERS_GROUP, load_builtin

    built_in = load_builtin(DRIVERS_GROUP, DISTRIBUTION, name)
    return built_in if isinstance(built_in, BuiltinDriver) else None


def _fake(config: DistillConfig, brain_dir: Path | None) -> Driver:
    from ._fake import FakeDriver, fixture_dir

    return FakeDriver(fixture_dir(config, brain_dir))


def _anthropic(config: DistillConfig, brain_dir: Path | None) -> Driver:
    from ._anthropic import AnthropicDriver

    return AnthropicDriver(config)


def _openai(config: DistillConfig, brain_dir: Path | None) -> Driver:
    from ._openai import OpenAIDriver

    return OpenAIDriver(config)


def _ollama(config: DistillConfig, brain_dir: Path | None) -> Driver:
    from ._openai import OllamaDriver

    return OllamaDriver(config)


# The built-in drivers, each this package's ``teambrain.drivers`` entry point of its name
# (pyproject.toml), and each a value ``distill.driver`` accepts (teambrain_schema's
# DistillConfig; test_llm checks the two lists agree).
fake_driver = BuiltinDriver(_fake, default_url=None, client=None)
anthropic_driver = BuiltinDriver(_anthropic, default_url=ANTHROPIC_DEFAULT_URL, client="anthropic")
openai_driver = BuiltinDriver(_openai, default_url=OPENAI_DEFAULT_URL, client="openai")
# Ollama is reached through its OpenAI-compatible /v1 endpoint, with the openai SDK.
ollama_driver = BuiltinDriver(_ollama, default_url=OLLAMA_DEFAULT_URL, client="openai")
