"""Every ``maskverify`` subcommand answers bad input with one line on stderr and exit status 2,
never a traceback; a selection that matches nothing is an error; ``papers`` lists the packs."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from numerics.app.cli import build_parser, main

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
    ("report", ["report", "--paper", "no-such-paper", "--out", "{tmp}"]),
    ("bounds", ["bounds", "--kappa", "-0.5"]),
    ("bounds", ["bounds", "--delta", "1.5"]),
    ("bounds", ["bounds", "--m", "0"]),
    ("bounds", ["bounds", "--data", "{tmp}/missing.npz"]),
    ("bounds", ["bounds", "--eta", "nan"]),
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
    assert masking["statements"] == 25  # 19 of Sections 4-5 and App. D, 6 empirical of Section 6
    assert masking["findings"] == 11
    assert "masking:thm.4.2" in masking["campaigns"]
