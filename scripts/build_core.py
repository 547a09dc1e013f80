"""Compile the play core with mypyc into build/core (see gunzi/core/__init__.py).

Run by `make setup` (so `make serve` and `make test` have it on a fresh machine) when a
core or engine source is newer than the build. The modules are compiled in a scratch copy
of the package, then only the compiled files and the digest of the sources they came
from are moved into place, in one rename, so a hall starting meanwhile sees either the
old build or the new one. Without a C compiler or mypyc it says so and exits 0: the core
then runs from source, which plays identical games, only slower.

Usage: python scripts/build_core.py [--check]   (--check: exit 1 unless the build is current)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from gunzi import core

# The modules the rollouts and batch simulation spend their time in (batch.py stays
# Python: its outcomes cross process boundaries by pickle).
MODULES = ("trick_state", "gunzi_play", "gunzi_rule", "classic_play")


def build() -> int:
    mypyc = Path(sys.executable).with_name("mypyc")
    if not mypyc.exists() or shutil.which("gcc") is None:
        print("build_core: no mypyc or gcc here; the play core runs from source (slower)")
        return 0
    digest = core.source_digest()
    with tempfile.TemporaryDirectory(prefix="gunzi-core-") as tmp:
        work = Path(tmp)
        shutil.copytree(core.HERE.parent, work / "gunzi",
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "static"))
        done = subprocess.run(
            [str(mypyc), *(f"gunzi/core/{m}.py" for m in MODULES)],
            cwd=work, capture_output=True, text=True)
        if done.returncode != 0:
            print("build_core: mypyc failed; the play core runs from source (slower)")
            print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
            return 0
        out = work / "out"
        (out / "gunzi" / "core").mkdir(parents=True)
        for lib in work.glob("*__mypyc.*.so"):  # the modules' shared library
            shutil.copy2(lib, out)
        for mod in MODULES:
            (so,) = (work / "gunzi" / "core").glob(f"{mod}.*.so")
            shutil.copy2(so, out / "gunzi" / "core")
        (out / core.DIGEST_FILE).write_text(digest + "\n")
        core.BUILD.parent.mkdir(parents=True, exist_ok=True)
        old = core.BUILD.with_name(core.BUILD.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        staged = core.BUILD.with_name(core.BUILD.name + ".new")
        shutil.rmtree(staged, ignore_errors=True)
        shutil.copytree(out, staged)
        if core.BUILD.exists():
            core.BUILD.rename(old)
        staged.rename(core.BUILD)
        shutil.rmtree(old, ignore_errors=True)
    print(f"build_core: compiled {', '.join(MODULES)} into {core.BUILD}")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--check"]:
        current = core.compiled_build() is not None
        print(f"build_core: {core.BUILD} is {'current' if current else 'missing or stale'}")
        return 0 if current else 1
    return build()


if __name__ == "__main__":
    raise SystemExit(main())
