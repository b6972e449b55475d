"""The ``PaperPack`` record: everything the application needs of one paper, and nothing it
must guess.

A pack is four folders (``theory/<id>/``, ``numerics/<id>/``, ``verify/<id>/``, ``notes/<id>/``)
and one entry point in the group ``maskverify.papers`` naming its ``PACK``.  The record holds
the theory half (``theory.core.pack.Paper``: id, title, authors, reference, statements,
derivations, LaTeX layout) and the numerical half: where its witnesses and errata are, its fuzz
campaigns, figures, experiments and the subcommands it adds to ``maskverify``.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from theory.core.pack import Paper

from .fuzzing import Campaign
from .sources import Index, load as load_sources


@dataclass(frozen=True)
class Figure:
    """One figure of the pack: ``produce(out_dir, quick, progress, seed=0) -> [paths]`` (PNG
    first); ``quick`` asks for the reduced run the default report uses, ``seed`` seeds what the
    figure samples (a figure whose experiment has its own seeds may ignore it).

    ``records=True``: its experiment runs as tasks of the execution layer, and ``produce`` also
    takes ``records=`` (a ``numerics.core.execution.Records``: the store to pass to
    ``execution.run`` with its ``resume`` and engine), so that a report draws it from the task
    records the pack commits (``PaperPack.records``) where they are stored for this code version,
    and computes only what is not (``maskverify report --rerun``: everything)."""

    name: str
    caption: str
    produce: Callable[..., list[Path]]
    records: bool = False


@dataclass(frozen=True)
class Command:
    """A subcommand the pack adds to ``maskverify``: ``add(subparsers)`` registers its parser
    (with ``set_defaults(func=...)``; ``func(args) -> exit status``)."""

    name: str
    add: Callable[[Any], argparse.ArgumentParser]


@dataclass(frozen=True, eq=False)
class PaperPack:
    paper: Paper
    #: the folder of the pack's witnesses (pytest files marked with ``statement``/``witness``)
    verify_dir: Path
    #: the errata data file (TOML, ``numerics.core.errata``); need not exist for a pack with none
    errata: Path
    campaigns: tuple[Campaign, ...] = ()
    figures: tuple[Figure, ...] = ()
    #: experiments' settings objects by name (what ``maskverify`` runs by default)
    experiments: tuple[tuple[str, Any], ...] = ()
    commands: tuple[Command, ...] = ()
    #: the source index (TOML, ``numerics.core.sources``): every result of the paper and what
    #: carries it; read and validated when the pack is built (a pack without one is listed as such)
    sources: Path | None = None
    #: the folder of task records the pack commits (a ``numerics.core.execution.Store``: one JSON
    #: record per task, keyed by its parameters and code version), from which ``maskverify report``
    #: draws the figures marked ``records=True``; None: they are computed by every report
    records: Path | None = None

    def __post_init__(self):
        known = {st.id for st in self.paper.statements}
        index = None
        if self.sources is not None and Path(self.sources).exists():
            index = load_sources(self.sources, self.paper.id, known)
        object.__setattr__(self, "_index", index)
        ids = set()
        for c in self.campaigns:
            if c.id in ids:
                raise ValueError(f"{self.id}: duplicate campaign id {c.id!r}")
            ids.add(c.id)
            if c.statement_id not in known:
                raise ValueError(f"{self.id}: campaign {c.id!r} names unknown statement {c.statement_id!r}")

    def __repr__(self) -> str:
        return f"PaperPack({self.id!r}: {len(self.paper.statements)} statements)"

    @property
    def id(self) -> str:
        return self.paper.id

    @property
    def index(self) -> Index | None:
        """The pack's source index, validated; None when it has none (yet)."""
        return self._index

    @property
    def title(self) -> str:
        return self.paper.title

    def campaign(self, campaign_id: str) -> Campaign:
        short = self.paper.short(campaign_id)
        for c in self.campaigns:
            if c.id == short:
                return c
        raise KeyError(f"{self.id} has no fuzz campaign {campaign_id!r}; known: "
                       + (", ".join(self.paper.qualify(c.id) for c in self.campaigns) or "none"))
