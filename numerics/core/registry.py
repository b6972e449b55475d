"""The registry of paper packs: every ``PaperPack`` installed under the entry-point group
``maskverify.papers`` (one line per pack in its distribution's metadata, e.g.
``masking = "numerics.masking.pack:PACK"``), plus any registered in-process with ``register``.

It rejects two packs with one id, and so two statements with one qualified id
(``pack:statement``).  Packs load on first use, in entry-point name order.
"""
from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

from theory.core.pack import SEP

from .pack import PaperPack

GROUP = "maskverify.papers"

_loaded: dict[str, PaperPack] | None = None
_extra: dict[str, PaperPack] = {}


class RegistryError(RuntimeError):
    """A pack could not be loaded, or two packs claim one id."""


def _load() -> dict[str, PaperPack]:
    packs: dict[str, PaperPack] = {}
    for ep in sorted(metadata.entry_points(group=GROUP), key=lambda e: e.name):
        try:
            pack = ep.load()
        except Exception as exc:  # a broken third-party pack is named, not hidden
            raise RegistryError(f"pack entry point {ep.name!r} ({ep.value}) failed to load: "
                                f"{type(exc).__name__}: {exc}") from exc
        if not isinstance(pack, PaperPack):
            raise RegistryError(f"entry point {ep.name!r} ({ep.value}) is not a PaperPack")
        if pack.id != ep.name:
            raise RegistryError(f"entry point {ep.name!r} names pack {pack.id!r}: they must agree")
        if pack.id in packs:
            raise RegistryError(f"two packs claim the id {pack.id!r}")
        packs[pack.id] = pack
    return packs


def packs() -> dict[str, PaperPack]:
    """Every pack by id: the installed ones, then those registered in-process."""
    global _loaded
    if _loaded is None:
        _loaded = _load()
    return {**_loaded, **_extra}


def register(pack: PaperPack) -> PaperPack:
    """Add ``pack`` for this process (tests, notebooks); an id already taken is refused."""
    if pack.id in packs():
        raise RegistryError(f"a pack with id {pack.id!r} is already registered")
    _extra[pack.id] = pack
    return pack


def unregister(pack_id: str) -> None:
    """Remove a pack added with ``register`` (installed packs cannot be removed)."""
    _extra.pop(pack_id, None)


def declared(pyproject: Path) -> dict[str, str]:
    """The ``maskverify.papers`` entry points a ``pyproject.toml`` declares, ``{id: value}``
    (empty when the file is missing or unreadable)."""
    try:
        data = tomllib.loads(Path(pyproject).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    return dict(data.get("project", {}).get("entry-points", {}).get(GROUP, {}))


def pyprojects() -> list[Path]:
    """The ``pyproject.toml`` files a new pack's entry point is likely written in: this
    repository's (the one above ``numerics/``) and the working directory's."""
    here = Path(__file__).resolve().parents[2] / "pyproject.toml"
    cwd = Path.cwd().resolve() / "pyproject.toml"
    return [p for p in dict.fromkeys((here, cwd)) if p.is_file()]


def unregistered() -> dict[str, Path]:
    """Pack ids declared in a ``pyproject.toml`` of :func:`pyprojects` whose entry point is not
    installed (the distribution was not reinstalled since the line was added): ``{id: file}``."""
    known = packs()
    return {pid: path for path in pyprojects() for pid in declared(path) if pid not in known}


def reinstall_hint(pack_id: str) -> str:
    """Why ``pack_id`` may be unknown: '' or the sentence naming the reinstall it needs."""
    path = unregistered().get(pack_id)
    if path is None:
        return ""
    return (f"; {pack_id!r} is declared in {path} but its entry point is not installed: run "
            f"`{install_command(path)}` to register it")


def install_command(pyproject: Path) -> str:
    """``pip install -e DIR`` for the distribution of ``pyproject`` (``.`` when it is the working
    directory's)."""
    folder = Path(pyproject).resolve().parent
    return f"pip install -e {'.' if folder == Path.cwd().resolve() else folder}"


def get(pack_id: str) -> PaperPack:
    try:
        return packs()[pack_id]
    except KeyError:
        raise KeyError(f"unknown paper {pack_id!r}; known: {', '.join(packs()) or 'none'}"
                       + reinstall_hint(pack_id)) from None


def select(pack_ids=None) -> list[PaperPack]:
    """The packs named (all when ``None``), in registry order; an unknown id raises KeyError."""
    if pack_ids is None:
        return list(packs().values())
    return [get(p) for p in dict.fromkeys(pack_ids)]


def split(qualified: str, pack_id: str | None = None) -> tuple[PaperPack, str]:
    """``masking:thm.4.2`` -> (the masking pack, ``thm.4.2``); a short id needs ``pack_id``, or
    is accepted when exactly one installed pack is known."""
    pack, sep, short = qualified.partition(SEP)
    if sep:
        if pack_id is not None and pack_id != pack:
            raise KeyError(f"{qualified!r} is not in paper {pack_id!r}")
        return get(pack), short
    if pack_id is not None:
        return get(pack_id), qualified
    known = packs()
    if len(known) == 1:
        return next(iter(known.values())), qualified
    raise KeyError(f"{qualified!r} is ambiguous: qualify it with its paper ({', '.join(p + SEP + qualified for p in known)})")
