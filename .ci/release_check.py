"""Release checks: `make release-check PKG=<pkg>` (a dry run of one package's release) and
`make changelog-check` (every package's changelog is current; part of CI).

A release of package <pkg> at version X.Y.Z is the git tag `teambrain-<pkg>-vX.Y.Z` on a commit
whose packages/<pkg>/pyproject.toml says X.Y.Z and whose CHANGELOG.md has a `## [X.Y.Z] - date`
section. .github/workflows/release.yml runs this same script on the tag, with `--published`:
the built wheel is then tested against the sibling packages on PyPI instead of the workspace's.

    python .ci/release_check.py release <pkg> [--tag TAG] [--published] [--no-tests]
    python .ci/release_check.py changelogs
"""

from __future__ import annotations

import argparse
import email
import os
import re
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["schema", "capture", "retrieval", "distill", "sync", "mcp-server", "cli"]
VERSION = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
SECTION = re.compile(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?\s*$", re.MULTILINE)
URL_KEYS = ("Homepage", "Documentation", "Repository", "Changelog", "Issues")
UV = [sys.executable, "-m", "uv"]


class Failed(Exception):
    pass


def project(pkg: str) -> dict:  # type: ignore[type-arg]
    return tomllib.loads((ROOT / "packages" / pkg / "pyproject.toml").read_text())["project"]


def tag_for(pkg: str, version: str) -> str:
    return f"teambrain-{pkg}-v{version}"


def sections(pkg: str) -> dict[str, str]:
    """Changelog section name → its text (``Unreleased`` included)."""
    text = (ROOT / "packages" / pkg / "CHANGELOG.md").read_text()
    found = list(SECTION.finditer(text))
    return {
        m.group(1): text[m.end() : found[i + 1].start() if i + 1 < len(found) else len(text)]
        for i, m in enumerate(found)
    }


def has_entries(section: str) -> bool:
    return any(line.startswith("- ") for line in section.splitlines())


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


# ---------------------------------------------------------------- changelog check (CI)


def check_changelogs() -> list[str]:
    """Each package has `## [Unreleased]`; a package whose sources changed since its last release
    tag says what changed there; every released version has a dated section."""
    problems = []
    for pkg in PACKAGES:
        found = sections(pkg)
        if "Unreleased" not in found:
            problems.append(f"packages/{pkg}/CHANGELOG.md: no `## [Unreleased]` section")
            continue
        tags = git("tag", "--list", f"teambrain-{pkg}-v*", "--sort=-v:refname").splitlines()
        for tag in tags:
            version = tag.rsplit("-v", 1)[1]
            if version not in found:
                problems.append(
                    f"packages/{pkg}/CHANGELOG.md: released {tag} has no `## [{version}]`"
                )
        since = tags[0] if tags else None
        changed = (
            git("diff", "--name-only", f"{since}..HEAD", "--", f"packages/{pkg}/src")
            if since
            else "unreleased"
        )
        if changed and not has_entries(found["Unreleased"]):
            where = f"since {since}" if since else "before its first release"
            problems.append(
                f"packages/{pkg}/CHANGELOG.md: the sources changed {where} but `## [Unreleased]` lists nothing"
            )
    return problems


# ---------------------------------------------------------------- one package's release


def check_metadata(pkg: str, tag: str | None) -> str:
    meta = project(pkg)
    version = meta["version"]
    if not VERSION.match(version):
        raise Failed(f"packages/{pkg}/pyproject.toml: version {version!r} is not X.Y.Z")
    if tag is not None and tag != tag_for(pkg, version):
        raise Failed(
            f"tag {tag} does not name {meta['name']} {version} (expected {tag_for(pkg, version)})"
        )
    found = sections(pkg)
    if version not in found or not found[version].strip():
        raise Failed(
            f"packages/{pkg}/CHANGELOG.md: no `## [{version}] - YYYY-MM-DD` section; move the "
            "`## [Unreleased]` entries under it (and bump the version) to release"
        )
    urls = meta.get("urls", {})
    missing = [key for key in URL_KEYS if key not in urls]
    if missing:
        raise Failed(f"packages/{pkg}/pyproject.toml: [project.urls] lacks {', '.join(missing)}")
    readme = (ROOT / "packages" / pkg / meta["readme"]).read_text()
    relative = re.findall(r"\]\((?!https?://|#)([^)]+)\)", readme)
    if relative:
        raise Failed(
            f"packages/{pkg}/README.md: links {relative[0]!r} would break on PyPI (use a full URL)"
        )
    if len(readme.split()) < 60:
        raise Failed(f"packages/{pkg}/README.md: too short to stand alone on PyPI")
    for dependency in meta.get("dependencies", []):
        sibling = re.match(r"teambrain-([a-z-]+)(?:\[[a-z,]+\])?>=([\d.]+),<([\d.]+)$", dependency)
        if dependency.startswith("teambrain-") and not sibling:
            raise Failed(
                f"packages/{pkg}/pyproject.toml: pin {dependency!r} as teambrain-x>=A.B,<A.C"
            )
        if sibling:
            other = project(sibling.group(1))["version"]
            low, high = (tuple(int(p) for p in v.split(".")) for v in sibling.group(2, 3))
            if not low <= tuple(int(p) for p in other.split(".")) < high:
                raise Failed(
                    f"{dependency}: the workspace's teambrain-{sibling.group(1)} is {other}"
                )
    return version


ACTION_DEFAULT = re.compile(
    r"^  teambrain-version:\n(?:    .*\n)*?    default: (?P<value>\S+)\s*$", re.MULTILINE
)
PINNED_USES = re.compile(r"^\s*-?\s*uses: [\w.-]+/[\w.-]+@[0-9a-f]{40}  # v\d[\w.]*(?:;.*)?$")


def check_action(version: str) -> None:
    """action.yml installs exactly this teambrain-cli by default (pinning the action's tag
    pins the CLI that runs), and every action it and the workflows use is pinned by commit."""
    text = (ROOT / "action.yml").read_text()
    found = ACTION_DEFAULT.search(text)
    expected = f"teambrain-cli=={version}"
    if found is None or found.group("value") != expected:
        have = found.group("value") if found else "none"
        raise Failed(f"action.yml: teambrain-version's default is {have!r}, not {expected!r}")
    for path in [ROOT / "action.yml", *sorted((ROOT / ".github" / "workflows").glob("*.yml"))]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.match(r"^\s*-?\s*uses: ", line) and not PINNED_USES.match(line):
                raise Failed(
                    f"{path.relative_to(ROOT)}:{number}: pin the action by commit SHA with its "
                    f"tag in a comment (`uses: owner/name@<40 hex>  # vX.Y.Z`): {line.strip()}"
                )


def build(pkg: str, out: Path) -> Path:
    name = project(pkg)["name"]
    subprocess.run(
        [*UV, "build", "--package", name, "--no-sources", "--out-dir", str(out), "--quiet"],
        cwd=ROOT, check=True,
    )  # fmt: skip
    wheels = sorted(out.glob(f"{name.replace('-', '_')}-*.whl"))
    if not wheels:
        raise Failed(f"no wheel built for {name}")
    with zipfile.ZipFile(wheels[-1]) as wheel:
        info = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(wheel.read(info))
    if metadata.get("Description-Content-Type") != "text/markdown" or not metadata.get_payload():
        raise Failed(f"{wheels[-1].name}: the README is not its long description")
    if len(metadata.get_all("Project-URL") or []) < len(URL_KEYS):
        raise Failed(f"{wheels[-1].name}: Project-URL entries missing")
    return wheels[-1]


def test_wheel(pkg: str, wheel: Path, out: Path, *, published: bool) -> None:
    """Install the wheel alone in a fresh venv — siblings from PyPI (``published``) or built from
    this checkout — and run the package's own tests against it."""
    venv = out / "venv"
    subprocess.run([*UV, "venv", "--quiet", str(venv)], check=True)
    python = venv / "bin" / "python"
    finds: list[str] = []
    if not published:
        for other in PACKAGES:
            if other != pkg:
                build(other, out / "siblings")
        finds = ["--find-links", str(out / "siblings")]
    subprocess.run(
        [*UV, "pip", "install", "--python", str(python), "--quiet", *finds, str(wheel),
         "pytest", "pytest-timeout", "hypothesis", "markdown-it-py"],
        check=True,
    )  # fmt: skip
    tests = ROOT / "packages" / pkg / "tests"
    env = {**os.environ, "TEAMBRAIN_HOME": str(out / "home"), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tests),
         "-c", os.devnull, str(tests)],
        cwd=out, env=env, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise Failed(f"{pkg}'s tests failed against the built wheel")


def release(pkg: str, *, tag: str | None, published: bool, tests: bool) -> None:
    if pkg not in PACKAGES:
        raise Failed(f"unknown package {pkg!r}; one of {', '.join(PACKAGES)}")
    version = check_metadata(pkg, tag)
    if pkg == "cli":
        check_action(version)
    existing = git("rev-parse", "--verify", "--quiet", f"refs/tags/{tag_for(pkg, version)}")
    if tag is None and existing:
        raise Failed(
            f"{tag_for(pkg, version)} already exists: bump the version in packages/{pkg}/pyproject.toml"
        )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        wheel = build(pkg, out / "dist")
        print(f"built {wheel.name}")
        if tests:
            test_wheel(pkg, wheel, out, published=published)
            print(f"{pkg}'s tests pass against the wheel")
    print(
        f"release-check: {project(pkg)['name']} {version} is ready; tag {tag_for(pkg, version)} to publish"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    one = sub.add_parser("release")
    one.add_argument("pkg")
    one.add_argument("--tag")
    one.add_argument("--published", action="store_true")
    one.add_argument("--no-tests", action="store_true")
    sub.add_parser("changelogs")
    args = parser.parse_args(argv)
    try:
        if args.what == "changelogs":
            problems = check_changelogs()
            for problem in problems:
                print(problem, file=sys.stderr)
            if problems:
                return 3
            print(f"changelog-check: {len(PACKAGES)} changelogs current")
            return 0
        release(args.pkg, tag=args.tag, published=args.published, tests=not args.no_tests)
        return 0
    except Failed as exc:
        print(f"release-check: {exc}", file=sys.stderr)
        return 3
    except subprocess.CalledProcessError as exc:
        print(
            f"release-check: {' '.join(map(str, exc.cmd[:6]))} failed (exit {exc.returncode})",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
