"""Add the other platforms' builds that a package names as optional dependencies but that npm
could not resolve here, so that ``npm ci`` accepts the lock file.

npm records an optional dependency in package-lock.json only when the registry it installed from
serves it; some agent CLIs (Qwen Code's clipboard, Cline) name per-platform builds that are not
served here, and ``npm ci`` then refuses the lock ("Missing: … from lock file"). Each missing
build is added as npm itself writes one it will skip: optional, with the ``os`` and ``cpu`` its
name says, resolved from the public registry. Run after ``npm install`` (README.md)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

LOCK = Path(__file__).resolve().parent / "package-lock.json"
OS = {"darwin": "darwin", "linux": "linux", "win32": "win32", "windows": "win32"}
CPU = {"arm64": "arm64", "x64": "x64", "amd64": "x64", "aarch64": "arm64"}


def platform_of(name: str) -> tuple[str, str] | None:
    """(os, cpu) from a build's package name, e.g. ``@cline/cli-darwin-arm64``."""
    words = re.split(r"[-_/]", name.rsplit("/", 1)[-1])
    found_os = next((OS[word] for word in words if word in OS), None)
    found_cpu = next((CPU[word] for word in words if word in CPU), None)
    return (found_os, found_cpu) if found_os and found_cpu else None


def main() -> int:
    lock = json.loads(LOCK.read_text())
    packages = lock["packages"]
    added = []
    for key, entry in list(packages.items()):
        folder = key.rsplit("node_modules/", 1)[0] if key else ""
        for name, version in (entry.get("optionalDependencies") or {}).items():
            place = f"{folder}node_modules/{name}"
            if place in packages or f"node_modules/{name}" in packages:
                continue
            platform = platform_of(name)
            if platform is None:
                print(f"cannot tell the platform of {name}: add it by hand", file=sys.stderr)
                return 1
            base = name.rsplit("/", 1)[-1]
            packages[place] = {
                "version": version,
                "resolved": f"https://registry.npmjs.org/{name}/-/{base}-{version}.tgz",
                "cpu": [platform[1]],
                "optional": True,
                "os": [platform[0]],
            }
            added.append(place)
    lock["packages"] = dict(sorted(packages.items(), key=lambda item: (item[0] != "", item[0])))
    LOCK.write_text(json.dumps(lock, indent=2) + "\n")
    print("\n".join(f"added {place}" for place in added) or "nothing missing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
