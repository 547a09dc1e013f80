"""The play core: the play phase on flat counts, for batch simulation and rollouts.

The reference engine (gunzi.engine) stays the readable spec; this package plays the
same rules with no actions, events or views in its inner loop. ``tests/core`` checks it
move for move against the engine.

**Which build runs.** ``make setup`` (and so ``make serve`` and ``make test``) compiles
the core's modules with mypyc into ``build/core`` of a source checkout
(``scripts/build_core.py``), with the digest of the sources it compiled. When that digest
is the digest of the sources here, this package looks in ``build/core`` first, so every
user of the core (the search bot's rollouts in the hall, the arena, ``gunzi simulate``,
training) runs compiled; with no build, a stale one (a source edited since), or
``GUNZI_CORE=pure``, the source modules run, and they play identical games
(``scripts/check_compiled.py``). ``GUNZI_CORE=compiled`` refuses to start without a
current build instead of falling back. ``make fast`` is another build: the whole engine
and the core compiled in place under ``build/fast``, for ``make bench``.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The core's compiled modules are checked against the engine's sources too: mypyc may
# bake an imported module's Final constants into the compiled code.
SOURCES = (HERE, HERE.parent / "engine")
BUILD = Path(os.environ.get("GUNZI_CORE_BUILD") or HERE.parents[2] / "build" / "core")
DIGEST_FILE = "digest"


def source_digest() -> str:
    """SHA-256 over the core's and the engine's source files (names and bytes)."""
    h = hashlib.sha256()
    for folder in SOURCES:
        for path in sorted(folder.glob("*.py")):
            h.update(f"{folder.name}/{path.name}\0".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def _compiled_here() -> bool:
    """True when this package's own modules are already compiled (``build/fast``)."""
    return any(HERE.glob("gunzi_play.*.so"))


def compiled_build() -> Path | None:
    """``build/core``'s compiled modules if they were built from these very sources."""
    try:
        built = (BUILD / DIGEST_FILE).read_text().strip()
    except OSError:
        return None
    return BUILD if built == source_digest() else None


def active() -> str:
    """``compiled`` or ``pure``: the build of the core this process runs."""
    from gunzi.core import gunzi_play

    return "pure" if str(gunzi_play.__file__).endswith(".py") else "compiled"


def _use_build() -> None:
    mode = os.environ.get("GUNZI_CORE", "auto")
    if mode not in ("auto", "pure", "compiled"):
        raise ImportError(f"GUNZI_CORE={mode!r}: use auto, pure or compiled")
    if mode == "pure" or _compiled_here():
        return
    build = compiled_build()
    if build is None:
        if mode == "compiled":
            raise ImportError(f"GUNZI_CORE=compiled, but {BUILD} holds no build of these "
                              "sources: run `make setup` (scripts/build_core.py)")
        return
    # mypyc's shared library is a top-level module of the build; the package's modules
    # are found in the build's gunzi/core first, then here.
    sys.path.append(str(build))
    __path__.insert(0, str(build / "gunzi" / "core"))


_use_build()
