"""Install teambrain the way a user does, offline: the eight wheels built from the workspace,
and every third-party wheel they need repacked from this environment's installed files (the
same files the registry's wheels held; RECORD says which), in one folder that pip, pipx and
``uv tool install`` read with ``--no-index --find-links``.

Each installer then works exactly as it does for a user: pip installs into a virtualenv (every
distribution's scripts in its bin/), ``uv tool install`` and pipx make a private environment
and put on PATH only the scripts of the package named.

Building the folder takes a while (eight builds, a hundred MB of third-party files zipped), so
:func:`cached_wheelhouse` builds it once into ``tests-integration/.cache/`` under a key made
of everything that goes into it: every test process of a run, and every later run with the
same sources and environment, reads the same folder.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import fcntl
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "teambrain-kit", "teambrain-schema", "teambrain-capture", "teambrain-retrieval", "teambrain-distill",
    "teambrain-sync", "teambrain-mcp-server", "teambrain-cli",
)  # fmt: skip
# What a user's environment gains beyond the core: the model clients behind cli's extras.
EXTRAS = ("anthropic", "openai", "ollama")
_SKIP_FILES = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}
CACHE = ROOT / "tests-integration" / ".cache" / "wheelhouse"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(roots: Iterable[str], extras: Iterable[str]) -> dict[str, metadata.Distribution]:
    """The installed distributions ``roots`` need, with ``extras`` of each, transitively."""
    from packaging.requirements import Requirement

    found: dict[str, metadata.Distribution] = {}
    todo = [(name, tuple(extras)) for name in roots]
    while todo:
        name, wanted = todo.pop()
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # a marker-less optional dependency this environment lacks
        key = _norm(dist.metadata["Name"])
        first = key not in found
        found[key] = dist
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker is not None and not any(
                req.marker.evaluate({"extra": extra}) for extra in ("", *wanted)
            ):
                continue
            if first or wanted:
                todo.append((req.name, tuple(req.extras)))
    return found


def _record_line(name: str, data: bytes) -> list[str]:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [name, f"sha256={digest}", str(len(data))]


def repack(dist: metadata.Distribution, dest: Path) -> Path:
    """A wheel of the installed distribution ``dist``: the files its RECORD lists inside
    site-packages (scripts are made again by the installer), tagged as its WHEEL file says."""
    info = Path(str(dist._path))  # type: ignore[attr-defined]
    site = info.parent
    wheel_meta = (info / "WHEEL").read_text()
    tags = [
        line.split(":", 1)[1].strip() for line in wheel_meta.splitlines() if line.startswith("Tag:")
    ]
    name = re.sub(r"[-.]+", "_", dist.metadata["Name"])
    version = dist.version
    # Several Tag lines (py2-none-any, py3-none-any) compress to one name: py2.py3-none-any.
    parts = [tag.split("-") for tag in tags] or [["py3", "none", "any"]]
    tag = "-".join(".".join(dict.fromkeys(p[i] for p in parts)) for i in range(3))
    target = dest / f"{name}-{version}-{tag}.whl"
    if target.exists():
        return target
    record_name = f"{info.name}/RECORD"
    rows: list[list[str]] = []
    buffer = io.BytesIO()
    # Stored, not deflated: a wheel's entries may be either, and squeezing ~100 MB of shared
    # libraries took ~8 s of CPU on every fresh clone and source change for a folder only
    # this machine reads.
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for item in dist.files or []:
            relative = item.as_posix()
            if relative.startswith("..") or "__pycache__" in relative:
                continue
            if relative.startswith(info.name + "/") and Path(relative).name in _SKIP_FILES:
                continue
            source = site / relative
            if not source.is_file():
                continue
            data = source.read_bytes()
            archive.writestr(relative, data)
            rows.append(_record_line(relative, data))
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([*rows, [record_name, "", ""]])
        archive.writestr(record_name, out.getvalue())
    target.write_bytes(buffer.getvalue())
    return target


def build_wheelhouse(dest: Path) -> Path:
    """Build the eight wheels into ``dest`` and repack every third-party distribution they
    need (with the model-client extras) beside them; returns ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    uv = [sys.executable, "-m", "uv"] if shutil.which("uv") is None else ["uv"]
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_OFFLINE": "1"}
    for package in PACKAGES:
        subprocess.run(
            [*uv, "build", "--package", package, "--no-sources", "--wheel", "--out-dir", str(dest), "--quiet"],
            cwd=ROOT, env=env, check=True, capture_output=True,
        )  # fmt: skip
    for key, dist in _closure(PACKAGES, EXTRAS).items():
        if key in PACKAGES:
            continue
        repack(dist, dest)
    return dest


def wheelhouse_key() -> str:
    """What the wheelhouse is made of, hashed: every file of the eight packages outside their
    tests, the third-party distributions (name and version) it repacks, this module, the
    Python and uv that build it. Any change gives a new key, so a cached folder is never stale."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version}\n{sys.executable}\n".encode())
    with contextlib.suppress(metadata.PackageNotFoundError):
        digest.update(f"uv {metadata.version('uv')}\n".encode())
    digest.update(Path(__file__).read_bytes())
    for path in sorted((ROOT / "packages").rglob("*")):
        relative = path.relative_to(ROOT / "packages")
        if not path.is_file() or "__pycache__" in relative.parts or relative.parts[1] == "tests":
            continue
        digest.update(f"{relative.as_posix()}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for key, dist in sorted(_closure(PACKAGES, EXTRAS).items()):
        if key not in PACKAGES:
            digest.update(f"{key}=={dist.version}\n".encode())
    return digest.hexdigest()[:20]


def cached_wheelhouse(cache: Path = CACHE) -> Path:
    """The wheelhouse for the current sources, built once into ``cache/<key>/`` (see
    :func:`wheelhouse_key`) and shared by every test process: the first to come builds it
    under a lock while the others wait, then all read it. Older keys are removed."""
    cache.mkdir(parents=True, exist_ok=True)
    key = wheelhouse_key()
    done = cache / key
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_dir():
            building = cache / f".{key}.{os.getpid()}"
            shutil.rmtree(building, ignore_errors=True)
            build_wheelhouse(building)
            building.rename(done)
            for old in cache.iterdir():  # other keys, and a build a killed process left
                if old.is_dir() and old != done:
                    shutil.rmtree(old, ignore_errors=True)
    return done


def scratch_env(base: Path) -> dict[str, str]:
    """An environment for installers and the installed commands: nothing of this test run's
    virtualenv on PATH, no network (pip and uv are told so), caches inside ``base``."""
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and Path(p).resolve() != Path(sys.executable).parent.resolve())  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH"))}
    env.update(
        PATH=path, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", UV_OFFLINE="1",
        UV_PYTHON_DOWNLOADS="never", UV_CACHE_DIR=str(base / "uv-cache"),
        PIP_CACHE_DIR=str(base / "pip-cache"),
    )  # fmt: skip
    return env


def install_with_pip(wheels: Path, prefix: Path, spec: str = "teambrain-cli") -> Path:
    """``python -m venv`` + ``pip install <spec>``: returns the virtualenv's bin/."""
    env = scratch_env(prefix)
    base_python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base_python, "-m", "venv", str(prefix / "venv")], check=True, env=env)
    pip = prefix / "venv" / "bin" / "pip"
    subprocess.run([str(pip), "install", "--quiet", "--no-index", "--find-links", str(wheels), spec],
                   check=True, env=env, capture_output=True)  # fmt: skip
    return prefix / "venv" / "bin"


def install_with_uv_tool(wheels: Path, prefix: Path, spec: str = "teambrain-cli") -> Path:
    """``uv tool install --compile-bytecode <spec>`` (the README's line): returns the bin
    directory uv puts the tool's commands in."""
    env = scratch_env(prefix)
    env.update(UV_TOOL_DIR=str(prefix / "tools"), UV_TOOL_BIN_DIR=str(prefix / "bin"))
    base_python = getattr(sys, "_base_executable", sys.executable)
    uv = (
        [sys.executable, "-m", "uv"] if shutil.which("uv") is None else [shutil.which("uv") or "uv"]
    )
    subprocess.run(
        [*uv, "tool", "install", "--compile-bytecode", "--no-index", "--find-links", str(wheels),
         "--python", base_python, spec],
        check=True, env=env, capture_output=True,
    )  # fmt: skip
    return prefix / "bin"


def install_with_pipx(
    wheels: Path, prefix: Path, spec: str = "teambrain-cli", backend: str = "pip"
) -> Path:
    """``pipx install <spec>`` with pipx's ``backend`` (``pip``, or ``uv``, which pipx picks
    when uv is on PATH), offline: returns PIPX_BIN_DIR."""
    env = scratch_env(prefix)
    env.update(PIPX_HOME=str(prefix / "pipx"), PIPX_BIN_DIR=str(prefix / "bin"),
               PIPX_MAN_DIR=str(prefix / "man"), PIPX_DEFAULT_BACKEND=backend,
               PIPX_DISABLE_SHARED_LIBS_AUTO_UPGRADE="1")  # fmt: skip
    pipx = Path(sys.executable).parent / "pipx"
    base_python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run(
        [str(pipx), "install", "--python", base_python,
         "--pip-args", f"--no-index --find-links {wheels}", spec],
        check=True, env=env, capture_output=True,
    )  # fmt: skip
    return prefix / "bin"
