"""A pack's errata as data: the findings where its paper is wrong, read from the pack's TOML
file (``PaperPack.errata``) and rendered to the Markdown beside it.

A finding is one ``[[erratum]]`` table of that file (stdlib ``tomllib``).  Text fields are
Markdown with inline TeX (``$...$``); ``statements`` are short ids of the pack's catalogue;
``reproduce`` holds one-line shell commands run from the repository root; ``tests`` holds the
pytest node ids (relative to the repository) of the ``xfail(strict=True)`` tests that hold
the printed form, a node id without ``[params]`` standing for all its parametrizations.  Each
of those tests gives a reason citing the entry as ``(<pack>:E<n>)`` (``Erratum.citation``);
``tests/test_errata.py`` keeps the data, the xfail marks and the rendered Markdown in
agreement.

======================  ========================  =====================================
key                     type                      meaning
======================  ========================  =====================================
id                      "E<n>" (required)         unique in the file
title                   text (required)           one line
statements              list of ids (required)    the statements the entry finds wrong
paper                   text (required)           the statement as the paper prints it
wrong                   text (required)           what is wrong with it
where                   text                      the place in the paper
counterexample          text                      the smallest counterexample
counterexample_label    text                      its bullet's label (default below)
sections                list of {label, text}     further findings, after the counterexample
consequence             text                      what follows from the error
reproduce               list of commands          shell commands, one line each
reproduce_note          text                      what they show, or why there is none
tests                   list of node ids          the strict xfails holding the printed form
covers                  list of {campaign, when}  the fuzz campaigns whose counterexamples
                                                  the entry records, and which ones
======================  ========================  =====================================

An erratum names what it covers.  A campaign's counterexample is the entry's only where
``[[erratum.covers]]`` names the campaign (its short id, ``@variant`` included) and the campaign's
predicate for the entry, ``Campaign.recorded[id](example)``, says the counterexample is the failure
that ``when`` describes (e.g. "the bound holds once the labels are 0": the violation is the label
term's).  A counterexample no entry covers is a new failure (``covering``; the verdict ``fails``).
``load`` holds both sides to each other: every cover names a campaign of the pack that fuzzes one of
the entry's statements and has a predicate for it, and every predicate belongs to a cover.

``python -m numerics.core.errata`` writes every registered pack's ``errata.md`` (beside its
TOML file) from the data; ``maskverify notes --paper ID`` regenerates one pack's, with its
LaTeX (``numerics.core.notes``).
"""
from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

#: an erratum id within its pack
ID = re.compile(r"^E[1-9][0-9]*$")
#: how an xfail's reason cites an erratum: ``(masking:E4)``
CITATION = re.compile(r"\((?P<pack>[a-z][a-z0-9_-]*):(?P<id>E[1-9][0-9]*)\)")
DEFAULT_COUNTEREXAMPLE_LABEL = "Smallest counterexample"
#: the command that renders every pack's errata.md
COMMAND = "python -m numerics.core.errata"


@dataclass(frozen=True)
class Section:
    """A further labelled finding of an entry (``[[erratum.sections]]``)."""

    label: str
    text: str


@dataclass(frozen=True)
class Cover:
    """The counterexamples of campaign ``campaign`` (a short id of the pack) that an entry records:
    those of which ``when`` holds, as the campaign's ``recorded`` predicate for the entry decides."""

    campaign: str
    when: str


@dataclass(frozen=True)
class Erratum:
    """One finding of pack ``pack`` (the fields of the module's table)."""

    pack: str
    id: str
    title: str
    statements: tuple[str, ...]
    paper: str
    wrong: str
    where: str | None = None
    counterexample: str | None = None
    counterexample_label: str = DEFAULT_COUNTEREXAMPLE_LABEL
    sections: tuple[Section, ...] = ()
    consequence: str | None = None
    reproduce: tuple[str, ...] = ()
    reproduce_note: str | None = None
    tests: tuple[str, ...] = ()
    covers: tuple[Cover, ...] = ()

    @property
    def qualified(self) -> str:
        """The id outside the pack: ``masking:E4``."""
        return f"{self.pack}:{self.id}"

    @property
    def citation(self) -> str:
        """What an xfail's reason contains to cite this entry: ``(masking:E4)``."""
        return f"({self.qualified})"


# key -> (kind, required); kinds are checked by _field
_FIELDS = {
    "id": ("text", True), "title": ("text", True), "statements": ("list", True), "paper": ("text", True),
    "wrong": ("text", True), "where": ("text", False), "counterexample": ("text", False),
    "counterexample_label": ("text", False), "sections": ("sections", False), "consequence": ("text", False),
    "reproduce": ("list", False), "reproduce_note": ("text", False), "tests": ("list", False),
    "covers": ("covers", False),
}
#: the keys of a table of each array-of-tables kind, and the record it becomes
_TABLES = {"sections": (("label", "text"), Section), "covers": (("campaign", "when"), Cover)}


def _field(key: str, kind: str, value, fail):
    """``value`` of ``key`` checked to be of ``kind`` and normalised (text stripped, lists as
    tuples); ``fail(message)`` raises."""
    if kind == "text":
        if not isinstance(value, str) or not value.strip():
            fail(f"{key!r} must be non-empty text")
        return value.strip()
    if kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() and "\n" not in v
                                                  for v in value):
            fail(f"{key!r} must be a list of non-empty one-line strings")
        return tuple(v.strip() for v in value)
    if not isinstance(value, list) or not all(isinstance(s, dict) for s in value):
        fail(f"{key!r} must be an array of tables [[erratum.{key}]]")
    keys, record = _TABLES[kind]
    out = []
    for s in value:
        if set(s) != set(keys):
            fail(f"each of {key!r} needs exactly the keys {' and '.join(map(repr, keys))}, got {sorted(s)}")
        out.append(record(*(_field(k, "text", s[k], fail) for k in keys)))
    return tuple(out)


def _entry(pack, path: Path, index: int, raw) -> Erratum:
    """The erratum of the ``index``-th table (from 1), validated against ``pack``."""
    def fail(message):
        name = f"entry {index}" + (f" ({raw['id']})" if isinstance(raw, dict) and isinstance(raw.get("id"), str)
                                   else "")
        raise ValueError(f"{path}: {name}: {message}")

    if not isinstance(raw, dict):
        fail("must be a table [[erratum]]")
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        fail(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(_FIELDS)}")
    missing = [k for k, (_, required) in _FIELDS.items() if required and k not in raw]
    if missing:
        fail(f"missing required key(s) {', '.join(missing)}")
    values = {k: _field(k, _FIELDS[k][0], v, fail) for k, v in raw.items()}
    if not ID.match(values["id"]):
        fail(f"id {values['id']!r} must match {ID.pattern}")
    if "\n" in values["title"]:
        fail("the title must be one line")
    if not values["statements"]:
        fail("'statements' must name at least one statement")
    known = {st.id for st in pack.paper.statements}
    strangers = [s for s in values["statements"] if s not in known]
    if strangers:
        fail(f"unknown statement(s) {', '.join(strangers)} (short ids of pack {pack.id!r})")
    bad_tests = [t for t in values.get("tests", ()) if "::" not in t or Path(t.split("::")[0]).is_absolute()]
    if bad_tests:
        fail(f"test(s) {', '.join(bad_tests)} are not pytest node ids that run from where the pack lives "
             "(path/test_x.py::test relative to the repository, or for a distribution module.test_x::test "
             "or relative to its root: numerics.core.nodeids)")
    campaigns = {c.id: c for c in getattr(pack, "campaigns", ())}
    for cover in values.get("covers", ()):
        c = campaigns.get(cover.campaign)
        if c is None:
            fail(f"covers unknown campaign {cover.campaign!r}; the pack's: {', '.join(campaigns) or 'none'}")
        if c.statement_id not in values["statements"]:
            fail(f"covers campaign {c.id!r}, which fuzzes {c.statement_id!r}, not one of its statements")
        if values["id"] not in c.recorded:
            fail(f"covers campaign {c.id!r}, which has no predicate for it (Campaign.recorded[{values['id']!r}])")
    return Erratum(pack=pack.id, **values)


def load(pack) -> list[Erratum]:
    """The errata of ``pack`` (a ``PaperPack``) in file order; [] when its file does not exist.

    Raises ``ValueError`` naming the file and the entry when the file is not TOML, has a key
    other than ``erratum``, or an entry lacks a required field, has an unknown or ill-typed
    one, repeats an id, or names a statement the pack does not have.
    """
    path = Path(pack.errata)
    if not path.exists():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    extra = sorted(set(data) - {"erratum"})
    if extra:
        raise ValueError(f"{path}: unknown top-level key(s) {', '.join(extra)}; entries are [[erratum]] tables")
    raw = data.get("erratum", [])
    if not isinstance(raw, list):
        raise ValueError(f"{path}: 'erratum' must be an array of tables [[erratum]]")
    entries, seen = [], set()
    for index, item in enumerate(raw, 1):
        e = _entry(pack, path, index, item)
        if e.id in seen:
            raise ValueError(f"{path}: entry {index} ({e.id}): duplicate id {e.id}")
        seen.add(e.id)
        entries.append(e)
    covered = {(c.campaign, e.id) for e in entries for c in e.covers}
    for c in getattr(pack, "campaigns", ()):
        stray = [eid for eid in c.recorded if (c.id, eid) not in covered]
        if stray:
            raise ValueError(f"{path}: campaign {c.id!r} has a predicate for {', '.join(stray)}, but no such "
                             f"entry covers it ([[erratum.covers]] campaign = {c.id!r})")
    return entries


def covering(errata, campaign, example) -> list[Erratum]:
    """The entries of ``errata`` that record ``example``, a counterexample of ``campaign`` (a
    ``fuzzing.Campaign``): those covering the campaign whose predicate holds of the example.  A
    predicate that raises records nothing (the counterexample then stands as a new failure)."""
    out = []
    for e in errata:
        if not any(c.campaign == campaign.id for c in getattr(e, "covers", ())):
            continue
        try:
            if campaign.recorded[e.id](example):
                out.append(e)
        except Exception:  # noqa: BLE001 -- an unjudgeable counterexample is not a recorded one
            continue
    return out


def markdown_path(pack) -> Path:
    """Where the pack's rendered errata live: ``errata.md`` beside its TOML file."""
    return Path(pack.errata).with_suffix(".md")


def _indent(text: str) -> str:
    """Continuation lines of a list item indented under its first line (blank lines stay empty)."""
    return "\n".join(("  " + line) if line.strip() else "" for line in text.split("\n"))


def _bullet(label: str, text: str, note: str | None = None) -> str:
    return f"- **{label}**{f' ({note})' if note else ''}: " + _indent(text).lstrip()


def home(pack) -> Path:
    """The folder a pack's commands run from: this repository's root for a pack inside it, the
    distribution's root (the folder above its top-level package, where ``pip install -e .`` ran)
    for one of its own."""
    from . import nodeids

    folder = Path(pack.verify_dir).resolve()
    if nodeids.in_repository(folder):
        return nodeids.REPOSITORY
    return nodeids.package_root(folder / "__init__.py") or folder


def runs_from(pack) -> str:
    """Where the reproducers of ``pack`` run, as the errata say it: "the repository root" (a pack
    of this repository), or, for a distribution, its root (``pytest --pyargs`` lines run from
    any folder)."""
    from . import nodeids

    if pack is None or nodeids.in_repository(pack.verify_dir):
        return "the repository root"
    return "the distribution's root; `pytest --pyargs` lines from any folder"


def entry_markdown(e: Erratum, level: int = 2, where: str = "the repository root") -> str:
    """One entry as Markdown: a heading of ``level`` (``E4. title``), then one bullet per field
    in the order statements, paper, wrong, counterexample, further sections, consequence,
    reproduce (a fenced shell block, run from ``where``: ``runs_from(pack)``), tests.  The report
    embeds this too."""
    lines = [f"{'#' * level} {e.id}. {e.title}", "",
             "- **Statements**: " + ", ".join(f"`{e.pack}:{s}`" for s in e.statements),
             _bullet("Paper", e.paper, e.where), _bullet("Wrong", e.wrong)]
    if e.counterexample:
        lines.append(_bullet(e.counterexample_label, e.counterexample))
    lines += [_bullet(s.label, s.text) for s in e.sections]
    if e.consequence:
        lines.append(_bullet("Consequence", e.consequence))
    if e.reproduce:
        block = [f"- **Reproduce** (from {where}):", "", "  ```sh", *(f"  {c}" for c in e.reproduce), "  ```"]
        if e.reproduce_note:
            block += ["", "  " + _indent(e.reproduce_note).lstrip()]
        lines.append("\n".join(block))
    elif e.reproduce_note:
        lines.append(_bullet("Reproduce", e.reproduce_note))
    if e.covers:
        lines.append("\n".join(["- **Campaign counterexamples it records** (others are new failures):",
                                *(f"  - `{e.pack}:{c.campaign}`: {c.when}" for c in e.covers)]))
    if e.tests:
        lines.append("\n".join([f"- **Tests** (`xfail(strict=True)`, reason citing `{e.citation}`):",
                                *(f"  - `{t}`" for t in e.tests)]))
    return "\n".join(lines) + "\n"


def render_markdown(pack, errata: list[Erratum]) -> str:
    """The pack's ``errata.md``: a header saying it is generated (from what, by which command),
    what an entry holds, then every entry (``entry_markdown``).  Deterministic: no absolute
    path or date, so a test can compare it with the committed file."""
    head = [
        f"# Errata: {pack.title}", "",
        f"*Generated from `{Path(pack.errata).name}` (beside this file) by `{COMMAND}`: edit the data, "
        "not this file.*", "",
        "Each entry: the statement as the paper prints it, what is wrong, the smallest counterexample, "
        "its consequence, the commands that reproduce it, and the tests that hold the printed form. "
        f"Those tests are marked `xfail(strict=True)` with a reason citing the entry as `({pack.id}:E<n>)`, "
        "so that the pack's witnesses stay green while the finding stays visible in `maskverify check` "
        "(cells read `finding N`).",
    ]
    return "\n".join(head) + "\n" + "".join("\n" + entry_markdown(e, where=runs_from(pack)) for e in errata)


def main(argv: list[str] | None = None) -> int:
    """Write every registered pack's errata.md from its data; a pack without a data file is
    skipped (and named).  Exit status 0, or 1 when a data file is invalid (the message says
    where)."""
    from theory.core.io import atomic_write

    from .registry import select

    if argv:
        print(f"usage: {COMMAND} (no arguments: renders every registered pack's errata.md)", file=sys.stderr)
        return 2
    for pack in select(None):
        try:
            found = load(pack)
        except ValueError as exc:
            print(f"{COMMAND}: {exc}", file=sys.stderr)
            return 1
        if not Path(pack.errata).exists():
            print(f"{pack.id}: no errata data ({pack.errata}); nothing written")
            continue
        path = atomic_write(markdown_path(pack), render_markdown(pack, found))
        print(f"{pack.id}: wrote {path} ({len(found)} entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
