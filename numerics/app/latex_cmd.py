"""``maskverify latex``: export every statement of the selected packs to LaTeX, and compile the PDF.

For each pack (``--paper``, default every registered one) writes one fragment ``<id>.tex`` per
statement and the pack's document ``formulas.tex`` into ``DIR/<pack>/``, and a master document
``DIR/formulas.tex`` that inputs every pack's fragments (``theory.core.latex.export_all``); with
``--pdf`` compiles the master into ``DIR/formulas.pdf``, with latexmk, or pdflatex run twice, in
a temporary build directory (so that no auxiliary file lands in the output directory).
The packs are known only through the registry (``numerics.core.cliargs.papers``).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: Where the export goes by default: a build folder git ignores (the copies committed under
#: ``notes/<pack>/latex/`` are checked against a fresh export by ``tests/test_notes_current.py``).
DEFAULT_OUT = "build/latex"
#: What Debian/Ubuntu need for ``--pdf`` (pdflatex, amsmath, amssymb, geometry, latexmk).
DEBIAN_PACKAGES = ("texlive-latex-base", "texlive-latex-recommended", "texlive-fonts-recommended", "latexmk")
#: Exit status when no TeX engine is installed.
NO_ENGINE = 2


def find_engine() -> list[str] | None:
    """The command that compiles a LaTeX file to PDF (latexmk preferred, else pdflatex), or None."""
    if shutil.which("latexmk") and shutil.which("pdflatex"):
        return ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error"]
    if shutil.which("pdflatex"):
        return ["pdflatex", "-interaction=nonstopmode", "-halt-on-error"]
    return None


def no_engine_message() -> str:
    """What to install when no TeX engine is on PATH."""
    return ("maskverify latex --pdf: no TeX engine (latexmk or pdflatex) on PATH; on Debian/Ubuntu install one "
            "with\n  apt-get install -y --no-install-recommends " + " ".join(DEBIAN_PACKAGES))


def compile_pdf(tex: str | Path, engine: list[str] | None = None, timeout: float = 300) -> Path:
    """Compile ``tex`` (and the files it ``\\input``s from its directory and its subdirectories,
    such as a master document's ``<pack>/``) into a PDF beside it.

    Runs ``engine`` (default :func:`find_engine`) in a temporary copy of the directory's
    ``.tex`` files (their relative paths kept); latexmk reruns as needed, pdflatex runs twice.
    Returns the PDF's path; raises ``RuntimeError`` with the end of the log when compilation
    fails, ``FileNotFoundError`` without an engine.
    """
    tex = Path(tex).resolve()
    engine = engine or find_engine()
    if engine is None:
        raise FileNotFoundError(no_engine_message())
    runs = 1 if Path(engine[0]).name == "latexmk" else 2
    with tempfile.TemporaryDirectory(prefix="maskverify-latex-") as build:
        for src in tex.parent.rglob("*.tex"):
            dest = Path(build, src.relative_to(tex.parent))
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
        for _ in range(runs):
            proc = subprocess.run(engine + [tex.name], cwd=build, capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
            if proc.returncode != 0:
                log = Path(build, tex.with_suffix(".log").name)
                tail = (log.read_text(errors="replace") if log.exists() else proc.stdout + proc.stderr)[-3000:]
                raise RuntimeError(f"{' '.join(engine)} {tex.name} failed (exit {proc.returncode}):\n{tail}")
        pdf = tex.with_suffix(".pdf")
        tmp = pdf.with_name(pdf.name + ".tmp")
        shutil.copyfile(Path(build, pdf.name), tmp)
        tmp.replace(pdf)
    return pdf


def add_subcommand(sub) -> None:
    """Register ``maskverify latex`` on the CLI's subparsers."""
    import argparse

    from numerics.core.cliargs import add_paper_argument

    p = sub.add_parser(
        "latex", help="export every statement to LaTeX (fragments and documents per paper, one master); "
                      "--pdf compiles it",
        description="Write, for every statement of each selected paper pack, a LaTeX fragment "
                    "DIR/<pack>/<id>.tex (paper reference, assumptions, each relation lhs = rhs, definitions, "
                    "notes and each step SymPy checked, typeset as lhs = rhs), and DIR/<pack>/formulas.tex, a "
                    "complete document that \\inputs them in the paper's order after the pack's notation table "
                    "and warnings; and DIR/formulas.tex, one document for all the selected packs.",
        epilog="Fragments have no preamble and use only LaTeX, amsmath and amssymb commands: paste or "
               "\\input them into a paper. --pdf compiles DIR/formulas.tex with latexmk (or pdflatex, twice) "
               "into DIR/formulas.pdf; without a TeX engine it says which Debian packages to install "
               "and exits with status 2 (the .tex files are written all the same). Files are written atomically.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_paper_argument(p)
    p.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                   help=f"output directory, created if missing (default {DEFAULT_OUT})")
    p.add_argument("--pdf", action="store_true", help="also compile DIR/formulas.tex into DIR/formulas.pdf")
    p.set_defaults(func=run)


def run(args) -> int:
    """Export the packs ``--paper`` names to ``args.out``; with ``args.pdf`` compile the master
    document.  Exit status: 0 done, 1 the compilation failed, 2 no TeX engine (the ``.tex``
    files are written all the same).  An unknown pack, no pack at all, or an output path that
    is an existing file is a ``UsageError``."""
    from numerics.core.cliargs import UsageError, papers
    from theory.core.latex import MASTER, export_all

    packs = papers(args)
    if not packs:
        raise UsageError("no paper pack is installed: nothing to export")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {args.out}: exists and is not a directory")
    export_all([pack.paper for pack in packs], out)
    for pack in packs:
        print(f"wrote {len(pack.paper.statements)} fragments and {MASTER} of {pack.id} to {out / pack.id}")
    print(f"wrote {out / MASTER}, the document for {', '.join(pack.id for pack in packs)}")
    if args.pdf:
        engine = find_engine()
        if engine is None:
            print(no_engine_message(), file=sys.stderr)
            return NO_ENGINE
        try:
            pdf = compile_pdf(out / MASTER, engine)
        except RuntimeError as err:
            print(f"maskverify latex --pdf: {err}", file=sys.stderr)
            return 1
        print(f"wrote {pdf}")
    return 0
