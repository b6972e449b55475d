"""What every registered pack commits that is generated (its ``errata.md`` and the LaTeX under
``notes/<pack>/latex/``) is current: ``numerics.core.notes.stale`` finds nothing, the function
``maskverify notes --check`` reports with.  Regenerate with ``maskverify notes --paper ID``.
The check itself is tested on a copy of a pack's notes with a file changed, one missing and
one left over."""
from __future__ import annotations

import dataclasses
import shutil

import pytest

from numerics.core import notes, registry

PACKS = registry.select(None)


@pytest.mark.parametrize("pack", [pytest.param(p, id=p.id) for p in PACKS])
def test_committed_generated_notes_are_current(pack):
    problems = [f"{s.path} ({s.why})" for s in notes.stale(pack)]
    assert problems == [], f"stale: run `{notes.COMMAND.format(id=pack.id)}` and commit the result"


def test_stale_finds_a_changed_a_missing_and_a_left_over_file_and_write_mends_them(tmp_path):
    pack = next(p for p in PACKS if p.errata.exists())
    copy = tmp_path / pack.id
    shutil.copytree(notes.notes_dir(pack), copy)
    moved = dataclasses.replace(pack, errata=copy / pack.errata.name)
    assert notes.stale(moved) == []
    fragments = sorted(notes.latex_dir(moved).glob("*.tex"))
    changed, missing = fragments[0], fragments[1]
    changed.write_text(changed.read_text() + "% edited by hand\n")
    missing.unlink()
    extra = notes.latex_dir(moved) / "no_such_statement.tex"
    extra.write_text("% left over\n")
    md = moved.errata.with_suffix(".md")
    md.write_text(md.read_text().replace("Errata", "Erata", 1))
    expected = sorted([notes.Stale(changed, "differs"), notes.Stale(missing, "missing"),
                       notes.Stale(extra, "left over"), notes.Stale(md, "differs")], key=lambda s: str(s.path))
    assert notes.stale(moved) == expected
    assert notes.write(moved) == expected
    assert notes.stale(moved) == [] and not extra.exists() and missing.exists()


def test_latex_out_refuses_a_packs_notes_folder(capsys):
    """``maskverify latex --out notes`` would write ``notes/<id>/*.tex`` beside the notes, not
    into ``latex/``: it is refused, naming ``maskverify notes``, and nothing is written."""
    from numerics.app.cli import main

    pack = PACKS[0]
    before = sorted(notes.notes_dir(pack).iterdir())
    assert main(["latex", "--paper", pack.id, "--out", str(notes.notes_dir(pack).parent)]) == 2
    err = capsys.readouterr().err
    assert f"run `maskverify notes --paper {pack.id}`" in err and len(err.splitlines()) == 1
    assert sorted(notes.notes_dir(pack).iterdir()) == before
