"""Every ``maskverify`` subcommand answers bad input with one line on stderr and exit status 2,
never a traceback; a selection that matches nothing is an error; ``papers`` lists the packs."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from numerics.app.cli import build_parser, main
from numerics.core import errata, registry

BAD = [
    ("papers", ["papers", "--paper", "no-such-paper"]),
    ("check", ["check", "--paper", "no-such-paper"]),
    ("check", ["check", "--paper", "masking", "-k", "no_test_is_called_this", "--no-progress", "-n", "1"]),
    ("check", ["check", "--workers", "0"]),
    ("figures", ["figures", "--paper", "masking", "--out", "{tmp}", "--only", "no-such-figure"]),
    ("figures", ["figures", "--paper", "no-such-paper", "--out", "{tmp}"]),
    ("figures", ["figures", "--paper", "masking"]),
    ("fuzz", ["fuzz", "masking:no-such-campaign"]),
    ("fuzz", ["fuzz", "other-paper:thm.4.2"]),
    ("fuzz", ["fuzz", "masking:thm.4.2", "--examples", "0"]),
    ("latex", ["latex", "--paper", "no-such-paper", "--out", "{tmp}"]),
    ("notes", ["notes", "--paper", "no-such-paper", "--check"]),
    ("new", ["new", "Bad-Id", "--title", "T", "--authors", "A", "--reference", "R"]),
    ("new", ["new", "masking", "--title", "T", "--authors", "A", "--reference", "R"]),
    ("new", ["new", "toy", "--title", "two\nlines", "--authors", "A", "--reference", "R"]),
    ("new", ["new", "toy", "--title", "T", "--authors", "A", "--reference", "R", "--dist", "{tmp}/../.."]),
    ("new", ["new", "toy", "--from", "{tmp}/no-such-paper.tex", "--title", "T", "--authors", "A", "--reference", "R"]),
    ("report", ["report", "--paper", "no-such-paper", "--out", "{tmp}"]),
    ("lint", ["lint", "--paper", "no-such-paper"]),
    ("bounds", ["bounds", "--kappa", "-0.5"]),
    ("bounds", ["bounds", "--delta", "1.5"]),
    ("bounds", ["bounds", "--m", "0"]),
    ("bounds", ["bounds", "--data", "{tmp}/missing.npz"]),
    ("bounds", ["bounds", "--eta", "nan"]),
    ("bounds", ["bounds", "--n", "20", "--d", "5", "--m", "10", "--kappa", "1e308"]),  # outside the stated domain
    ("bounds", ["bounds", "--data", "{tmp}"]),
    ("train", ["train", "--steps", "0"]),
    ("train", ["train", "--kappa", "-1"]),
    ("train", ["train", "--lr", "0"]),
    ("train", ["train", "--workers", "-2"]),
    ("privacy", ["privacy", "accuracy", "--data", "{tmp}/no-cifar-here", "--out", "{tmp}"]),
    ("privacy", ["privacy", "--kappa", "-1", "--out", "{tmp}"]),
    ("meanfield-train", ["meanfield-train", "--m", "0", "--out", "{tmp}"]),
    ("meanfield-train", ["meanfield-train", "--delta", "-1", "--out", "{tmp}"]),
    ("meanfield-exp2", ["meanfield-exp2", "--m", "0", "--out", "{tmp}"]),
    ("meanfield-exp3", ["meanfield-exp3", "--m", "3", "--out", "{tmp}"]),
    ("amplification-train", ["amplification-train", "--m", "3", "--out", "{tmp}"]),
    ("amplification-train", ["amplification-train", "--eta", "0.5", "--out", "{tmp}"]),
    (None, ["no-such-command"]),
    # sizes nobody can run: refused at the door with the limit (issue 35 item 4), not hung or crashed
    ("fuzz", ["fuzz", "masking:cor.5.3", "--examples", "99999999999999999999999", "--workers", "0"]),
    ("fuzz", ["fuzz", "masking:cor.5.3", "--examples", "100000000", "--chunk", "1", "--workers", "0"]),
    ("fuzz", ["fuzz", "masking:cor.5.3", "--workers", "100000"]),
    ("check", ["check", "-n", "100000"]),
    ("report", ["report", "-n", "100000", "--out", "{tmp}/r"]),
    ("meanfield-exp2", ["meanfield-exp2", "--workers", "5000", "--out", "{tmp}/e2"]),
    ("train", ["train", "--m", "99999999999", "--out", "{tmp}/t", "--no-progress"]),
    ("bounds", ["bounds", "--m", "99999999999"]),
    ("bounds", ["bounds", "--d", "99999999999"]),
    ("amplification-train", ["amplification-train", "--m", "99999999998", "--out", "{tmp}/a", "--no-progress"]),
    ("meanfield-train", ["meanfield-train", "--m", "99999999998", "--out", "{tmp}/m"]),
    ("meanfield-exp3", ["meanfield-exp3", "--m", "99999999998", "--out", "{tmp}/e3", "--no-progress"]),
    # misleading messages of old (item 7): a short id only masking has, an empty id, a malformed -k
    ("fuzz", ["fuzz", ""]),
    ("check", ["check", "-k", "and or (", "--no-progress"]),
]


@pytest.mark.parametrize("command, argv", BAD, ids=[" ".join(a) for _, a in BAD])
def test_bad_input_is_one_line_and_exit_2(command, argv, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2, f"exit status {code}, stderr: {err}"
    assert len(err.splitlines()) == 1, f"not one line:\n{err}"
    assert "Traceback" not in err and err.startswith("maskverify"), err
    assert not list(tmp_path.iterdir()), f"wrote {sorted(p.name for p in tmp_path.iterdir())}"


def test_a_short_campaign_id_only_one_pack_has_is_that_packs(capsys):
    """'thm.4.2' was called ambiguous and pointed at amplification:thm.4.2, which has no campaign."""
    assert main(["fuzz", "thm.4.2", "--examples", "2", "--seed", "0", "--workers", "0", "--no-progress"]) in (0, 1)
    assert "campaign thm.4.2: Theorem 4.2" in capsys.readouterr().out


def test_every_subcommand_is_driven_with_bad_input():
    """The list above covers every registered subcommand, the packs' own included."""
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) == {c for c, _ in BAD if c}


def test_papers_json_lists_the_masking_pack():
    """Through the installed console script and the entry point, as a user runs it."""
    out = subprocess.run([sys.executable, "-m", "numerics.app.cli", "papers", "--json"], capture_output=True,
                         text=True, check=True).stdout
    rows = {r["id"]: r for r in json.loads(out)}
    masking = rows["masking"]
    assert masking["title"].startswith("Convergence Analysis of Two-Layer Neural Networks")
    assert masking["reference"] == "arXiv 2602.17423 v1"
    pack = registry.get("masking")  # the subprocess's counts are the pack's data, as this process loads it
    assert masking["statements"] == len(pack.paper.statements) > 0
    assert masking["findings"] == len(errata.load(pack)) > 0
    assert masking["coverage"]["counts"]["results"] == len(pack.index.results)
    assert "masking:thm.4.2" in masking["campaigns"]


# ---------------------------------------------------------------------------------------
# Output paths: checked when the command line is parsed, before any work (issue 35)
# ---------------------------------------------------------------------------------------

#: (command line before the path, the option, what the path must be); each command's every output
OUTPUTS = [
    (["check", "--paper", "masking", "--no-progress"], "--json", "file"),
    (["fuzz", "masking:thm.4.2", "--examples", "2", "--no-progress", "--workers", "0"], "--json", "file"),
    (["fuzz", "masking:thm.4.2", "--examples", "2", "--no-progress", "--workers", "0"], "--store", "dir"),
    (["figures", "--paper", "masking", "--quick"], "--out", "dir"),
    (["latex", "--paper", "masking"], "--out", "dir"),
    (["new", "toyx", "--title", "T", "--authors", "A", "--reference", "R"], "--dist", "dir"),
    (["report", "--paper", "masking", "--no-progress"], "--out", "dir"),
    (["bounds", "--n", "5", "--d", "3", "--m", "4"], "--json", "file"),
    (["train", "--steps", "1", "--seeds", "1", "--no-progress"], "--out", "dir"),
    (["train", "--steps", "1", "--seeds", "1", "--no-progress", "--out", "{tmp}/ok"], "--store", "dir"),
    (["privacy", "--no-progress"], "--out", "dir"),
    (["privacy", "--no-progress", "--out", "{tmp}/ok"], "--store", "dir"),
    (["amplification-train", "--no-progress"], "--out", "dir"),
    (["amplification-train", "--no-progress", "--out", "{tmp}/ok"], "--store", "dir"),
    (["meanfield-train", "--no-progress"], "--out", "dir"),
    (["meanfield-exp2", "--no-progress"], "--out", "dir"),
    (["meanfield-exp2", "--no-progress", "--out", "{tmp}/ok"], "--store", "dir"),
    (["meanfield-exp3", "--no-progress"], "--out", "dir"),
    (["meanfield-exp3", "--no-progress", "--out", "{tmp}/ok"], "--store", "dir"),
]
#: paths that cannot be written as a folder / as a file: an unwritable place, an existing thing of
#: the other kind, a file's child, and the empty path (which would write into the working directory)
BAD_PATHS = {"dir": ["/proc/maskverify-x", "{tmp}/a-file", "{tmp}/a-file/child", ""],
             "file": ["/proc/maskverify-x", "{tmp}/a-dir", "{tmp}/a-file/child", ""]}
CASES = [(head, flag, path) for head, flag, kind in OUTPUTS for path in BAD_PATHS[kind]]


@pytest.mark.parametrize("head, flag, path", CASES, ids=[f"{h[0]} {f} {p!r}" for h, f, p in CASES])
def test_an_output_that_cannot_be_written_is_refused_before_any_work(head, flag, path, tmp_path, monkeypatch, capsys):
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-dir").mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in [*head, flag, path]]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and len(err.splitlines()) == 1 and flag in err, err
    assert "Traceback" not in err and err.startswith("maskverify")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-dir", "a-file", "cwd"] and not any(cwd.iterdir())


def test_every_output_option_is_in_the_table():
    """Every option of every subcommand whose type is an output path is driven above."""
    from numerics.core.cliargs import output

    kinds = {output("dir").__name__, output("file").__name__}
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    have = {(name, opt) for name, p in sub.choices.items() for a in p._actions
            if getattr(a.type, "__name__", None) in kinds and getattr(a.type, "__qualname__", "").startswith("output.")
            for opt in a.option_strings if opt.startswith("--")}
    assert have == {(h[0], f) for h, f, _ in OUTPUTS}
