"""The theory half of a paper pack: what the paper is, its statements, its derivations, and how
its formulas are typeset.

A pack's ``theory/<pack>/`` builds one :class:`Paper`; its ``numerics/<pack>/`` wraps it in a
``numerics.core.pack.PaperPack`` with the numerical parts (campaigns, figures, experiments,
errata, witnesses), which the registry serves to the application.  Statement ids are short
inside a pack (``thm.4.2``) and namespaced outside it (``masking:thm.4.2``).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Callable

from .derivation import Derivation
from .statement import Statement

#: a pack id: lower-case letters, digits, '-' and '_', starting with a letter
PACK_ID = re.compile(r"^[a-z][a-z0-9_-]*$")
SEP = ":"


@dataclass(frozen=True)
class LatexMeta:
    """How the pack's document is laid out: sections in the paper's order as
    ``(title, statement ids)``, a notation table ``(symbol, meaning)`` and warnings, all LaTeX;
    and ``macros``, the macros the paper defines, ``(name, definition)`` (``(r"\\Var",
    r"\\operatorname{Var}")``, ``(r"\\norm", r"\\lVert #1\\rVert")`` with arguments ``#1``...):
    the LaTeX round trip accepts them in the pack's fragments beside the commands of LaTeX,
    amsmath and amssymb (``theory.core.latex_commands``), and the pack's documents define them
    (``\\newcommand``).  A name must be a backslash and letters, listed once, and not a standard
    command (a paper that redefines ``\\exp`` would change what its fragments mean elsewhere)."""

    sections: tuple[tuple[str, tuple[str, ...]], ...] = ()
    notation: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()
    macros: tuple[tuple[str, str], ...] = ()

    def __post_init__(self):
        from .latex_commands import NAME, PACKAGE

        seen = set()
        for entry in self.macros:
            if not (isinstance(entry, tuple) and len(entry) == 2 and all(isinstance(x, str) for x in entry)):
                raise ValueError(f"LatexMeta.macros: {entry!r} is not a (name, definition) pair of strings")
            name, _definition = entry
            if not NAME.match(name):
                raise ValueError(f"LatexMeta.macros: {name!r} is not a macro name (a backslash and letters)")
            if name in PACKAGE:
                raise ValueError(f"LatexMeta.macros: {name} is a command of {PACKAGE[name]}, not the paper's")
            if name in seen:
                raise ValueError(f"LatexMeta.macros: {name} is listed twice")
            seen.add(name)


#: a derivation registry: ``{(statement id, part): function returning a Derivation}``
Registry = dict[tuple[str, str], Callable[[], Derivation]]


@dataclass(frozen=True, eq=False)
class Paper:
    """One paper: identity, statements in paper order, derivation registries and LaTeX layout.

    ``derivations`` are checks that a part holds; ``refutations`` check a counterexample to a
    part (a finding), so a refutation that is ``proved`` confirms the paper is wrong there.
    """

    id: str
    title: str
    authors: tuple[str, ...]
    reference: str
    statements: tuple[Statement, ...]
    derivations: tuple[Registry, ...] = ()
    refutations: tuple[Registry, ...] = ()
    latex: LatexMeta = field(default_factory=LatexMeta)

    def __post_init__(self):
        if not PACK_ID.match(self.id):
            raise ValueError(f"pack id {self.id!r} must match {PACK_ID.pattern}")
        seen = set()
        for st in self.statements:
            if SEP in st.id:
                raise ValueError(f"{self.id}: statement id {st.id!r} must be short (no {SEP!r})")
            if st.id in seen:
                raise ValueError(f"{self.id}: duplicate statement id {st.id!r}")
            seen.add(st.id)
        for registry in self.derivations + self.refutations:
            for sid, _part in registry:
                if sid not in seen:
                    raise ValueError(f"{self.id}: a derivation names unknown statement {sid!r}")

    def __repr__(self) -> str:
        return f"Paper({self.id!r}: {self.title})"

    @property
    def catalogue(self) -> dict[str, Statement]:
        return {st.id: st for st in self.statements}

    def statement(self, statement_id: str) -> Statement:
        """The statement of short id ``thm.4.2`` or qualified id ``masking:thm.4.2``."""
        short = self.short(statement_id)
        for st in self.statements:
            if st.id == short:
                return st
        raise KeyError(f"{self.id} has no statement {statement_id!r}; known: "
                       + ", ".join(st.id for st in self.statements))

    def qualify(self, statement_id: str) -> str:
        """``thm.4.2`` -> ``masking:thm.4.2`` (a qualified id of this pack is returned as it is)."""
        return statement_id if statement_id.startswith(self.id + SEP) else f"{self.id}{SEP}{statement_id}"

    def short(self, statement_id: str) -> str:
        pack, sep, rest = statement_id.partition(SEP)
        if not sep:
            return statement_id
        if pack != self.id:
            raise KeyError(f"{statement_id!r} is not a statement of pack {self.id!r}")
        return rest

    def checked_derivations(self) -> tuple[tuple[Derivation, bool], ...]:
        """Every derivation and refutation, run once per process: ``(derivation, is_refutation)``."""
        return _run_derivations(self)


@functools.lru_cache(maxsize=None)
def _run_derivations(paper: Paper) -> tuple[tuple[Derivation, bool], ...]:
    out = []
    for registries, refutes in ((paper.derivations, False), (paper.refutations, True)):
        for registry in registries:
            out.extend((fn(), refutes) for fn in registry.values())
    return tuple(out)
