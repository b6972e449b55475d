"""``maskverify latex``: export every statement of the catalogue to LaTeX, and compile the PDF.

Writes one fragment ``<id>.tex`` per statement and the master document ``formulas.tex``
(``theory.core.latex.export``); with ``--pdf`` compiles ``formulas.tex`` into ``formulas.pdf``
beside it, with latexmk, or pdflatex run twice, in a temporary build directory (so that
no auxiliary file lands in the output directory).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_OUT = "notes/latex"
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
    """Compile ``tex`` (and the files it ``\\input``s from its directory) into a PDF beside it.

    Runs ``engine`` (default :func:`find_engine`) in a temporary copy of the directory; latexmk
    reruns as needed, pdflatex runs twice.  Returns the PDF's path; raises ``RuntimeError``
    with the end of the log when compilation fails, ``FileNotFoundError`` without an engine.
    """
    tex = Path(tex).resolve()
    engine = engine or find_engine()
    if engine is None:
        raise FileNotFoundError(no_engine_message())
    runs = 1 if Path(engine[0]).name == "latexmk" else 2
    with tempfile.TemporaryDirectory(prefix="maskverify-latex-") as build:
        for src in tex.parent.glob("*.tex"):
            shutil.copy2(src, build)
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

    p = sub.add_parser(
        "latex", help="export every statement to LaTeX (one fragment each and formulas.tex); --pdf compiles it",
        description="Write, for every statement of the catalogue, a LaTeX fragment <id>.tex (paper reference, "
                    "assumptions, each relation lhs = rhs, definitions, notes and the steps SymPy checked), "
                    "and formulas.tex, a complete document that \\inputs them in the paper's order after a "
                    "notation table and a warning about the paper's phi(x) = exp(-x^2).",
        epilog="Fragments have no preamble and use only LaTeX, amsmath and amssymb commands: paste or "
               "\\input them into a paper. --pdf compiles formulas.tex with latexmk (or pdflatex, twice) "
               "into formulas.pdf beside it; without a TeX engine it says which Debian packages to install "
               "and exits with status 2. Files are written atomically.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                   help=f"output directory, created if missing (default {DEFAULT_OUT})")
    p.add_argument("--pdf", action="store_true", help="also compile formulas.tex into formulas.pdf")
    p.set_defaults(func=run)


def run(args) -> int:
    """Export to ``args.out``; with ``args.pdf`` compile the PDF.  Exit status: 0 done, 1 the
    compilation failed, 2 no TeX engine (the ``.tex`` files are written all the same)."""
    from theory.core.latex import MASTER, export
    from theory.masking.paper import PAPER  # FIXME: the app must take the packs from the registry

    paths = export(PAPER, args.out)
    print(f"wrote {len(paths) - 1} fragments and {MASTER} to {args.out}")
    if args.pdf:
        engine = find_engine()
        if engine is None:
            print(no_engine_message(), file=sys.stderr)
            return NO_ENGINE
        try:
            pdf = compile_pdf(Path(args.out) / MASTER, engine)
        except RuntimeError as err:
            print(f"maskverify latex --pdf: {err}", file=sys.stderr)
            return 1
        print(f"wrote {pdf}")
    return 0
