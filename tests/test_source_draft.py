"""Drafting a source index from the paper (``numerics.core.source_draft``, ``source_latex``,
``source_text``; ``maskverify new ID --from SOURCE``).

- LaTeX: the fixture papers of ``tests/fixtures/latex/`` get exactly the labels LaTeX prints
  (worked out by hand below, rule by rule), their sections, names, kinds, ``\\label`` keys and
  quotes with ``\\ref`` resolved; the same from the source folder and from a tarball made here;
- text: the three seed texts (``../shared/papers/seeds/``) give the results a referee would list,
  and a small extraction exercises each printed form;
- bad input is one ``DraftError`` line; ``maskverify new --from`` writes a pack that loads (its
  index validates, every placeholder is ``not checked``: "no witness yet"), or, on bad input,
  prints one line, exits 2 and writes nothing;
- the seed packs' indexes contain every label the text reader drafts from their seeds.
"""
from __future__ import annotations

import argparse
import re
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import given, strategies as st

from numerics.app import skeleton
from numerics.core import source_draft, source_latex, source_text, sources
from numerics.core.source_draft import DraftError, Drafted

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "latex"
PAPER = FIXTURES / "numbering" / "main.tex"
SEEDS = ROOT.parent / "shared" / "papers" / "seeds"
#: each seed pack and the seed texts of its paper
SEED_PACKS = {"masking": ("000_7ed0922f81d7f4cf.txt", "001_41c03e8a97e32f81.txt"),
              "meanfield": ("004_f0615ac1d3b8f7e0.txt",), "amplification": ("003_9604b1f1afdb1401.txt",)}

#: the fixture paper's results as LaTeX numbers them, (label, section), in document order:
#: theorem is numbered within section and shared by lemma, corollary and definition; assumption
#: has a counter of its own; cond (Condition) one within section; equations are numbered within
#: section (\numberwithin); align numbers lines except \notag, \tag{$\star$} takes no number;
#: starred environments and \newtheorem* have no number; sections/experiments.tex is \input as
#: Section 3; \appendix makes the next section A, resetting theorem and equation; subequations
#: numbers (A.2a), (A.2b); \setcounter{theorem}{4} makes the next theorem A.5
EXPECTED = [
    ("Assumption 1", "1"), ("eq. (1.1)", "1"),
    ("Definition 2.1", "2"), ("Lemma 2.2", "2"), ("Theorem 2.3", "2"),
    ("eq. (2.1)", "2"), ("eq. ($\\star$)", "2"), ("eq. (2.2)", "2"),
    ("Theorem in Section 2", "2"), ("Note in Section 2", "2"),
    ("Condition 2.1", "2.1"), ("Corollary 2.4", "2.1"), ("Figure 1", "2.1"), ("Table 1", "2.1"),
    ("Proposition 1", "3"), ("Figure 2", "3"), ("eq. (3.1)", "3"), ("eq. (3.2)", "3"),
    ("Lemma A.1", "A"), ("eq. (A.1)", "A"), ("eq. (A.2a)", "A"), ("eq. (A.2b)", "A"), ("Theorem A.5", "A"),
]


@pytest.fixture(scope="module")
def fixture_draft():
    return source_latex.read(PAPER)


def by_label(draft) -> dict[str, Drafted]:
    return {r.label: r for r in draft.results}


# ---------------------------------------------------------------------------- LaTeX
def test_latex_numbers_every_result_as_latex_prints_it(fixture_draft):
    assert [(r.label, r.section) for r in fixture_draft.results] == EXPECTED
    assert fixture_draft.format == "latex"


def test_latex_kinds_names_and_labels(fixture_draft):
    got = by_label(fixture_draft)
    assert {label: got[label].kind for label in ("Definition 2.1", "Note in Section 2", "Condition 2.1",
                                                 "eq. (2.1)", "Figure 1", "Table 1", "Proposition 1")} == {
        "Definition 2.1": "definition", "Note in Section 2": "remark", "Condition 2.1": "condition",
        "eq. (2.1)": "equation", "Figure 1": "figure", "Table 1": "table", "Proposition 1": "proposition"}
    assert got["Definition 2.1"].name == "Margin" and got["Theorem 2.3"].name == "Main bound"
    assert got["Theorem 2.3"].keys == ("thm:main",) and got["eq. (2.1)"].keys == ("eq:x",)
    assert got["Figure 1"].keys == ("fig:loss",) and got["eq. (1.1)"].keys == ("eq:first",)
    assert not any("Ghost" in label for label in got)  # a \newtheorem in a comment declares nothing


def test_latex_quotes_resolve_references(fixture_draft):
    got = by_label(fixture_draft)
    assert got["Theorem 2.3"].quote == "By Lemma 2.2 and (1.1), under Assumption 1, the loss decays."
    assert got["Corollary 2.4"].quote == "It follows from Theorem 2.3 and (2.1)."
    assert got["Theorem A.5"].quote == "As in Lemma A.1 and Figure 1."  # \cref gives the printed label
    assert got["Table 1"].quote == "The constants of Theorem 2.3."
    # the LaTeX as written: the environment's body (its \label left out), each display line
    assert got["Theorem 2.3"].tex.startswith(r"By Lemma~\ref{lem:small} and \eqref{eq:first}")
    assert got["eq. (2.1)"].tex == "x &= y + 1" and got["eq. (3.2)"].tex == "a + b \\\\\n  + c = d"


def test_the_parsed_expression_of_a_display(fixture_draft):
    x, y = sp.symbols("x y")
    got = by_label(fixture_draft)
    result = sources.Result(label="eq. (2.1)", kind="equation", section="2", quote="x = y + 1",
                            tex=got["eq. (2.1)"].tex)
    parsed = result.expression()
    assert isinstance(parsed, sp.Eq) and sp.simplify(parsed.lhs - parsed.rhs - (x - y - 1)) == 0
    assert {v.name for v in parsed.free_symbols} == {"x", "y"}
    a, b, c = sp.symbols("a b c")
    split = sources.Result(label="eq. (9)", kind="equation", section="1", quote="q",
                           tex=r"\begin{split} a &= b + c, \end{split}\label{eq:nine}")
    parsed = split.expression()  # layout, label and final comma removed
    assert isinstance(parsed, sp.Eq) and str(parsed.lhs) == "a" and sp.simplify(parsed.rhs - (b + c)) == 0
    assert sources.Result(label="x", kind="equation", section="1", quote="q", tex=r"a = = b").expression() is None
    assert sources.Result(label="x", kind="theorem", section="1", quote="q").expression() is None


def test_thmtools_declarations():
    got = source_latex.read(FIXTURES / "thmtools.tex")
    assert [(r.label, r.kind, r.section) for r in got.results] == [
        ("Theorem 1.1", "theorem", "1"), ("Lemma 1.2", "lemma", "1"), ("Hypothesis in Section 1", "assumption", "1"),
        ("Lemma 2.1", "lemma", "2")]
    assert got.results[0].name == "First"


def test_counterwithin_and_the_appendices_environment():
    got = source_latex.read(FIXTURES / "appendices.tex")
    # the theorem counter is not reset by sections, so the appendix's theorem is Theorem 2
    assert [(r.label, r.section) for r in got.results] == [
        ("Theorem 1", "1"), ("eq. (1.1)", "1"), ("eq. (A.1)", "A"), ("Theorem 2", "A")]


def test_book_classes_number_by_chapter():
    got = source_latex.read(FIXTURES / "book.tex")
    assert [(r.label, r.section) for r in got.results] == [
        ("eq. (1.1)", "1"), ("Theorem 1.1", "1.1"), ("Figure 1.1", "1.1"), ("Claim 2.1", "2"), ("eq. (2.1)", "2"),
        ("eq. (2.2)", "2"), ("Theorem A.1", "A"), ("eq. (A.1)", "A")]
    assert by_label(got)["Theorem 1.1"].name == "Existence"


def test_a_bare_input_is_followed_as_tex_reads_it(tmp_path):
    """TeX's primitive form ``\\input sections/intro`` (no braces; the name ends at a blank), beside
    the braced one: both files' results are drafted, in document order."""
    (tmp_path / "sections").mkdir()
    (tmp_path / "sections" / "intro.tex").write_text("\\begin{theorem}First.\\end{theorem}\n")
    (tmp_path / "second.tex").write_text("\\begin{lemma}Second.\\end{lemma}\n")
    main = tmp_path / "main.tex"
    main.write_text("\\documentclass{article}\n\\newtheorem{theorem}{Theorem}\n\\newtheorem{lemma}[theorem]{Lemma}\n"
                    "\\begin{document}\n\\input sections/intro\n\\input{second}\n\\end{document}\n")
    assert [r.label for r in source_latex.read(main).results] == ["Theorem 1", "Lemma 2"]


def test_an_arxiv_folder_and_tarball_give_the_same_draft(tmp_path, fixture_draft):
    folder = PAPER.parent
    assert source_draft.draft(folder).results == fixture_draft.results  # main.tex found: it has \documentclass
    tarball = tmp_path / "2501.00001.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        for path in folder.rglob("*.tex"):
            tar.add(path, arcname=path.relative_to(folder).as_posix())
    drafted = source_draft.draft(tarball)
    assert [(r.label, r.section, r.quote) for r in drafted.results] == [
        (r.label, r.section, r.quote) for r in fixture_draft.results]


@pytest.mark.parametrize("name, content, message", [
    ("missing.tex", None, "no such file or folder"),
    ("nodoc.tex", "fixture", "no \\documentclass"),
    ("empty.tex", "fixture", "no theorem-like result"),
    ("broken.tar.gz", b"not a tarball at all", "not a readable tarball"),
])
def test_bad_sources_are_one_line_errors(tmp_path, name, content, message):
    path = tmp_path / name
    if content == "fixture":
        path = FIXTURES / name
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(DraftError) as err:
        source_draft.draft(path)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_folder_without_a_main_file_is_refused(tmp_path):
    (tmp_path / "part.tex").write_text("\\section{Only a part}\n")
    with pytest.raises(DraftError, match="no .tex file with \\\\documentclass"):
        source_draft.draft(tmp_path)


# ---------------------------------------------------------------------------- text
EXTRACTION = """\
1 Introduction

We use Theorem 4.2 below, unlike (Du et al., 2018, Lemma 3) and [Ada+14, Theorem 1].

4 Main results

Theorem 4.2.

For every $t > 0$ the loss decays.

Lemma A.1 (a named lemma). Every neuron moves a little.

Assumption 5.1

The data are bounded.

Theorem 4.2 shows that the loss decays; see Lemmas 4.4 and 4.5.

Condition 4.7

$$x_{t+1} = x_t - \\eta g_t$$ (13)

$$y = 1$$

(14)

Figure 3: The loss against the width.

Table 1. The constants.
"""


def test_the_text_reader_reads_each_printed_form():
    got = by_label(source_text.read(EXTRACTION, "extraction"))
    assert list(got) == ["Theorem 4.2", "Lemma A.1", "Assumption 5.1", "Lemma 4.4", "Lemma 4.5", "Condition 4.7",
                         "eq. (13)", "eq. (14)", "Figure 3", "Table 1"]
    assert got["Theorem 4.2"].section == "4" and got["Theorem 4.2"].quote.startswith("Theorem 4.2. For every")
    assert got["Lemma A.1"].name == "a named lemma" and got["Lemma A.1"].kind == "lemma"
    assert got["Lemma 4.4"].section == "4" and "see Lemmas 4.4 and 4.5" in got["Lemma 4.4"].quote
    assert got["eq. (13)"].tex == r"x_{t+1} = x_t - \eta g_t" and got["eq. (14)"].tex == "y = 1"
    assert got["Figure 3"].quote == "Figure 3: The loss against the width." and got["Table 1"].kind == "table"
    # mentions that cite other papers are not results of this one: no Lemma 3, no Theorem 1


def _seed(*names) -> dict[str, Drafted]:
    if not SEEDS.is_dir():
        pytest.skip(f"not checked: the seed texts are not at {SEEDS}")
    return by_label(source_draft.draft_many([SEEDS / n for n in names]))


def test_the_amplification_seed():
    got = _seed(*SEED_PACKS["amplification"])
    for label in ("Theorem 3.1", "Proposition 3.2", "Lemma 4.1", "Lemma 4.3", "Lemma 4.10", "Lemma 4.11",
                  "Lemma A.1", "Condition 4.7", "Condition 4.8", "Figure 1", "Figure 2", "Assumption (A2)"):
        assert label in got, label
    assert got["Lemma 4.3"].section == "4" and got["Condition 4.7"].kind == "condition"
    # [Ada+14, Theorem 1], [Dia+20, Definition 1.2] and "Table 2 ... of [Mal+21]" cite other papers
    assert not {"Theorem 1", "Definition 1.2", "Table 2"} & set(got)


def test_the_meanfield_seed():
    got = _seed(*SEED_PACKS["meanfield"])
    for label in ("Theorem 1", "Theorem 2", "Theorem 3", "Lemma 1", "Lemma 4", "Corollary 1", "Condition 1",
                  "Assumption 1", "Assumption 4", "Table 1", "Figure 8", "eq. (17)", "eq. (23)", "eq. (83)"):
        assert label in got, label
    assert got["Theorem 1"].name == "Fixed embedding" and got["Theorem 1"].section == "3.1"
    assert got["Theorem 1"].quote.startswith("Theorem 1 (Fixed embedding). Suppose that Assumptions 1, 2 and 3")
    assert got["eq. (17)"].tex.startswith(r"\mathcal{L}_{t}\leq\mathcal{L}_{0}e^{-r\hat{c}^{2}")
    assert len([r for r in got.values() if r.kind == "equation"]) == 96


def test_the_masking_seed():
    got = _seed(*SEED_PACKS["masking"])
    for label in ("Theorem 4.2", "Theorem 4.9", "Theorem 5.2", "Theorem 5.6", "Assumption 5.1", "Corollary 5.3",
                  "Corollary 5.4", "Lemma D.21", "eq. (1)", "eq. (7)", "eq. (11)", "Figure 1", "Figure 10"):
        assert label in got, label
    assert got["eq. (1)"].tex.startswith(r"\mathbf{W}_{k+1}=\mathbf{W}_{k}-\eta")


def indexed(label: str, labels: set[str]) -> bool:
    """Whether an index with ``labels`` lists the drafted ``label``: the same label, a label that
    narrows it ("Figure 2(a)", "Figure 4, row 1", "Theorem 5.2: the weight movement" list parts of
    "Figure 2", "Figure 4", "Theorem 5.2"), a label naming the equation ("Proof of Lemma 1: eq. (37)"),
    or a range that holds it ("eq. (2)-(3)", "Proof of Lemma 1: eq. (41)-(47)", "Figures 7-8")."""
    if label in labels or any(other.startswith((label + "(", label + ",", label + ":")) for other in labels):
        return True
    m = re.fullmatch(r"(eq\.|Figure|Table) \(?(\d+)\)?", label)
    if not m:
        return False
    word, n = m.group(1), int(m.group(2))
    if word == "eq." and any(re.search(rf"(^|[\s,:]){re.escape(label)}($|[\s,;:])", other) for other in labels):
        return True  # "Proof of Lemma 1: eq. (37)"
    pattern = (r"eq\. \((\d+)\)-\((\d+)\)" if word == "eq." else rf"{word}s (\d+)-(\d+)")
    return any(int(a) <= n <= int(b) for other in labels for a, b in re.findall(pattern, other))


def test_indexed_reads_parts_and_ranges():
    labels = {"eq. (2)-(3)", "Figure 2(a)", "Figure 4, row 1", "Proof of Lemma 1: eq. (41)-(47)", "Figures 7-8",
              "Theorem 5.2: the weight movement", "Lemma 1", "Proof of Lemma 1: eq. (37)"}
    assert [indexed(x, labels) for x in ("eq. (3)", "eq. (4)", "Figure 2", "Figure 4", "eq. (43)", "Figure 8",
                                          "Figure 9", "Theorem 5.2", "Lemma 1", "Lemma 2", "eq. (37)", "eq. (7)")] == [
        True, False, True, True, True, True, False, True, True, False, True, False]


@pytest.mark.parametrize("pack", sorted(SEED_PACKS))
def test_the_seed_packs_index_every_result_drafted_from_their_seed(pack):
    """Every label the text reader drafts from a seed pack's seed text is in that pack's index
    (:func:`indexed`: as it is, in parts, or in a range); the index holds more (proof steps, prose
    claims): the draft is its floor."""
    path = ROOT / "notes" / pack / "sources.toml"
    if not path.exists():
        pytest.skip(f"not checked: {pack} has no source index yet ({path})")
    drafted = _seed(*SEED_PACKS[pack])
    labels = {r["label"] for r in tomllib.loads(path.read_text(encoding="utf-8")).get("result", [])}
    missing = [label for label in drafted if not indexed(label, labels)]
    assert not missing, f"{pack}: drafted from the seed but not in {path.relative_to(ROOT)}: {', '.join(missing)}"


# ---------------------------------------------------------------------------- maskverify new --from
def _args(pack_id, dist, *sources_):
    return argparse.Namespace(id=pack_id, title="A fixture paper", authors="A. Author, B. Author",
                              reference="none", dist=dist, sources=[str(s) for s in sources_])


@pytest.fixture
def isolated_imports(monkeypatch):
    """``new`` puts a distribution on ``sys.path`` and imports its pack: undo both afterwards."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("maskverify_"):
            del sys.modules[name]


def test_new_from_latex_drafts_a_pack_that_loads(tmp_path, capsys, isolated_imports):
    from numerics.app import new_cmd

    dist = tmp_path / "dist"
    assert new_cmd.run(_args("srcdraftprobe", dist, PAPER)) == 0
    out = capsys.readouterr().out
    summary = [line for line in out.splitlines() if line.startswith("drafted ")]
    assert summary == [f"drafted 23 results from {PAPER} (latex): 1 assumption, 9 equations, 1 definition, 2 lemmas, "
                       "3 theorems, 1 remark, 1 condition, 1 corollary, 2 figures, 1 table, 1 proposition"]
    assert any(line.startswith("next: ") and "maskverify check --paper srcdraftprobe" in line
               for line in out.splitlines())
    import maskverify_srcdraftprobe.pack as module

    pack = module.PACK
    index = sources.load(dist / "maskverify_srcdraftprobe" / "notes" / "sources.toml", pack.id,
                         {s.id for s in pack.paper.statements})
    assert [r.label for r in index.results] == [label for label, _ in EXPECTED]
    assert pack.index is not None and len(pack.paper.statements) == len(index.results) == 23
    assert [r.statements for r in index.results] == [(s.id,) for s in pack.paper.statements]  # one each, in order
    assert all(s.not_checked == "no witness yet" and not s.equations for s in pack.paper.statements)
    thm = pack.paper.statement("thm.2.3")
    assert thm.ref == "Theorem 2.3" and r"\ref{lem:small}" in thm.printed and "Lemma 2.2" in thm.notes
    assert index.result("eq. (2.1)").tex == "x &= y + 1" and pack.paper.statement("eq.2.1").printed == "x &= y + 1"
    assert (dist / "maskverify_srcdraftprobe" / "notes" / "sources.md").is_file()
    assert not (dist / "maskverify_srcdraftprobe" / "verify" / "test_s1_mean_symbolic.py").exists()


def test_new_from_a_text_extraction(tmp_path, capsys, isolated_imports):
    from numerics.app import new_cmd

    text = tmp_path / "paper.md"
    text.write_text(EXTRACTION)
    assert new_cmd.run(_args("srcdrafttext", tmp_path / "dist", text)) == 0
    assert (f"drafted 10 results from {text} (text): 1 theorem, 3 lemmas, 1 assumption, 1 condition, 2 equations, "
            "1 figure, 1 table") in capsys.readouterr().out
    import maskverify_srcdrafttext.paper as paper

    assert [s.ref for s in paper.PAPER.statements][:3] == ["Theorem 4.2", "Lemma A.1", "Assumption 5.1"]
    assert paper.PAPER.statement("eq.13").printed == r"x_{t+1} = x_t - \eta g_t"  # the extraction's $$...$$


@pytest.mark.parametrize("bad", ["missing.tex", "nodoc.tex"])
def test_new_from_bad_input_writes_nothing(tmp_path, capsys, bad):
    from numerics.app import cli

    dist = tmp_path / "dist"
    source = FIXTURES / bad if bad == "nodoc.tex" else tmp_path / bad
    code = cli.main(["new", "srcdraftbad", "--title", "T", "--authors", "A", "--reference", "R",
                     "--from", str(source), "--dist", str(dist)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "--from" in err and not dist.exists()


def test_a_drafted_pack_in_this_repository_layout(fixture_draft):
    files = skeleton.files(skeleton.Layout.in_repository("probe"), "T", ("A",), "R", draft=fixture_draft,
                           source_text="paper.tex")
    assert {"theory/probe/paper.py", "notes/probe/sources.toml", "numerics/probe/pack.py",
            "verify/probe/test_latex.py"} <= set(files)
    assert not any(name.endswith("_symbolic.py") or name.endswith("_reference.py") for name in files)
    index = tomllib.loads(files["notes/probe/sources.toml"])
    assert len(index["result"]) == 23 and index["result"][4]["statements"] == ["thm.2.3"]
    assert "--from paper.tex" in files["theory/probe/paper.py"] and "notes/probe/sources.toml" in files["theory/probe/paper.py"]
    compile(files["theory/probe/paper.py"], "paper.py", "exec")


def test_the_skeleton_without_a_source_indexes_its_example(tmp_path):
    files = skeleton.files(skeleton.Layout.distribution("probe"), "T", ("A",), "R")
    path = tmp_path / "sources.toml"
    path.write_text(files["maskverify_probe/notes/sources.toml"])
    index = sources.load(path, "probe", {"lemma.mean"})
    assert [(r.label, r.statements) for r in index.results] == [("Lemma 1", ("lemma.mean",))]
    assert 'sources=HERE / "notes" / "sources.toml"' in files["maskverify_probe/pack.py"]
    in_repo = skeleton.files(skeleton.Layout.in_repository("probe"), "T", ("A",), "R")
    assert "notes/probe/sources.toml" in in_repo and '"sources.toml"' in in_repo["numerics/probe/pack.py"]


@given(st.text())
def test_drafted_text_round_trips_through_toml_and_python(text):
    kept = text.translate(skeleton._CONTROL)
    assert tomllib.loads(f"v = {skeleton.toml_text(text)}\n")["v"] == kept
    assert eval(skeleton.python_text(text)) == text  # noqa: S307 - the literal the theory module holds


def test_statement_ids_of_drafted_labels():
    def sid(label, kind):
        return source_draft.statement_id(Drafted(label=label, kind=kind, section="1", quote="q"))

    assert [sid("Theorem 4.2", "theorem"), sid("Lemma A.1", "lemma"), sid("eq. (13)", "equation"),
            sid("eq. (A.2a)", "equation"), sid("Figure 3", "figure"), sid("Assumption (A2)", "assumption"),
            sid("Theorem in Section 2", "theorem")] == [
        "thm.4.2", "lemma.A.1", "eq.13", "eq.A.2a", "fig.3", "asm.A2", "thm.theorem-in-section-2"]


def _guide_block() -> list[str]:
    """The commands of the guide's ``sh run=from-source`` block (docs/adding-a-paper.md)."""
    from markdown_it import MarkdownIt

    guide = (ROOT / "docs" / "adding-a-paper.md").read_text(encoding="utf-8")
    (block,) = [t.content for t in MarkdownIt().parse(guide)
                if t.type == "fence" and t.info.strip() == "sh run=from-source"]
    return [line for line in block.splitlines() if line.strip()]


@pytest.mark.slow
def test_the_guides_from_source_commands_list_the_whole_paper(tmp_path):
    """The guide's first block as a user runs it, on the fixture paper: ``maskverify new --from``,
    the 'install', then ``maskverify check``: every drafted result is a row, not checked (no
    witness yet), and the coverage line counts them all."""
    import shlex

    from _clone import installed, maskverify  # tests/ is on sys.path

    lines = _guide_block()
    assert [line.split()[:2] for line in lines] == [["maskverify", "new"], ["cd", "DIR"], ["maskverify", "check"]]
    dist = tmp_path / "dist"
    argv = [str(PAPER) if a == "paper.tex" else str(dist) if a == "DIR" else a for a in shlex.split(lines[0])]
    pack_id = argv[2]
    run = maskverify(ROOT, [ROOT], *argv[1:])
    assert run.returncode == 0, run.stderr
    assert "drafted 23 results from" in run.stdout
    site = installed(tmp_path / "site", f"maskverify_{pack_id}", f"{pack_id} = maskverify_{pack_id}.pack:PACK")
    run = maskverify(dist, [ROOT, site, dist], *shlex.split(lines[2])[1:], "--no-progress", "-n", "1")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "23 statements: 23 not checked" in run.stdout
    assert f"{pack_id}:thm.2.3: not checked: no witness yet" in run.stdout
    assert (f"{pack_id}: 23 results in the paper: 0 carried by a holding or supported statement, 0 by a finding, "
            "0 by a failing statement, 0 in part, 23 not checked, 0 not carried") in run.stdout
