"""The commands a LaTeX fragment may use: those of LaTeX itself, amsmath and amssymb, as data.

:data:`COMMANDS` maps a package (``"latex"``: the LaTeX kernel with the standard classes and the
TeX primitives it exposes; ``"amsmath"``: what ``\\usepackage{amsmath}`` adds, amstext, amsbsy
and amsopn included; ``"amssymb"``: what ``\\usepackage{amssymb}`` adds, amsfonts included) to
groups of command names, typed from the packages' documented command sets (the LaTeX manual's
tables of math symbols, the amsmath user's guide, the AMS symbol list of amssymb).  Only commands
spelled with letters are listed (``\\alpha``, not ``\\,``): those are the ones a fragment's text
is searched for.  A command belongs to the package that *defines* it: amsmath's ``\\varGamma`` is
not LaTeX's, amssymb's ``\\varkappa`` not amsmath's, and one the kernel took over from a package (``\\medspace``, ``\\mho``,
``\\sqsubset``, in LaTeX since 2020) is LaTeX's (``tests/test_latex_commands.py`` checks
that each entry is undefined before its package is loaded and defined after it, where TeX is
installed).

:func:`allowed` is the set the LaTeX round trip accepts (``verify.latex_roundtrip``), with the
macros a pack declares for its paper (``theory.core.pack.LatexMeta.macros``).
"""
from __future__ import annotations

import re

#: a command name as listed: a backslash and letters
NAME = re.compile(r"^\\[A-Za-z]+$")


def _names(text: str) -> tuple[str, ...]:
    return tuple(text.split())


COMMANDS: dict[str, dict[str, tuple[str, ...]]] = {
    "latex": {
        "greek lower": _names(r"""
            \alpha \beta \gamma \delta \epsilon \varepsilon \zeta \eta \theta \vartheta \iota \kappa
            \lambda \mu \nu \xi \pi \varpi \rho \varrho \sigma \varsigma \tau \upsilon \phi \varphi
            \chi \psi \omega"""),
        "greek upper": _names(r"\Gamma \Delta \Theta \Lambda \Xi \Pi \Sigma \Upsilon \Phi \Psi \Omega"),
        "operators": _names(r"""
            \arccos \arcsin \arctan \arg \cos \cosh \cot \coth \csc \deg \det \dim \exp \gcd \hom \inf
            \ker \lg \lim \liminf \limsup \ln \log \max \min \Pr \sec \sin \sinh \sup \tan \tanh
            \bmod \pmod"""),
        "binary operators": _names(r"""
            \pm \mp \times \div \cdot \ast \star \circ \bullet \cap \cup \uplus \sqcap \sqcup \vee
            \wedge \setminus \wr \diamond \bigtriangleup \bigtriangledown \triangleleft \triangleright
            \oplus \ominus \otimes \oslash \odot \bigcirc \dagger \ddagger \amalg \land \lor"""),
        "relations": _names(r"""
            \leq \le \geq \ge \equiv \prec \succ \sim \preceq \succeq \simeq \ll \gg \asymp \subset
            \supset \approx \subseteq \supseteq \cong \sqsubseteq \sqsupseteq \bowtie \in \ni \owns
            \propto \vdash \dashv \models \mid \parallel \perp \smile \frown \neq \ne \doteq \notin
            \sqsubset \sqsupset"""),
        "arrows": _names(r"""
            \leftarrow \gets \rightarrow \to \leftrightarrow \Leftarrow \Rightarrow \Leftrightarrow
            \mapsto \hookleftarrow \hookrightarrow \leftharpoonup \leftharpoondown \rightharpoonup
            \rightharpoondown \rightleftharpoons \longleftarrow \longrightarrow \longleftrightarrow
            \Longleftarrow \Longrightarrow \Longleftrightarrow \longmapsto \uparrow \downarrow
            \updownarrow \Uparrow \Downarrow \Updownarrow \nearrow \searrow \swarrow \nwarrow \iff"""),
        "symbols": _names(r"""
            \aleph \hbar \imath \jmath \ell \wp \Re \Im \partial \infty \prime \emptyset \nabla \surd
            \top \bot \angle \triangle \backslash \forall \exists \neg \lnot \flat \natural \sharp
            \clubsuit \diamondsuit \heartsuit \spadesuit \ldots \cdots \vdots \ddots \dots \colon \mho"""),
        "large operators": _names(r"""
            \sum \prod \coprod \int \oint \bigcap \bigcup \bigsqcup \bigvee \bigwedge \bigodot
            \bigotimes \bigoplus \biguplus"""),
        "delimiters": _names(r"""
            \langle \rangle \lfloor \rfloor \lceil \rceil \lbrace \rbrace \lbrack \rbrack \vert \Vert
            \left \right \middle \big \Big \bigg \Bigg \bigl \bigr \Bigl \Bigr \biggl \biggr \Biggl
            \Biggr \bigm \Bigm \biggm \Biggm"""),
        "accents": _names(r"""
            \hat \check \tilde \acute \grave \dot \ddot \breve \bar \vec \mathring \widehat
            \widetilde \overline \underline \overbrace \underbrace \overrightarrow \overleftarrow"""),
        "structures": _names(r"""
            \frac \sqrt \stackrel \choose \atop \over \limits \nolimits \displaystyle \textstyle
            \scriptstyle \scriptscriptstyle \mathop \mathrel \mathbin \mathord \mathpunct \mathopen
            \mathclose \phantom \hphantom \vphantom \smash \mbox \fbox \parbox"""),
        "fonts": _names(r"""
            \mathrm \mathit \mathbf \mathsf \mathtt \mathcal \mathnormal \textrm \textit \textbf
            \textsf \texttt \textup \textsl \textsc \textnormal \emph \boldmath \unboldmath"""),
        "spacing": _names(r"""
            \quad \qquad \thinspace \negthinspace \enspace \hspace \vspace \medskip \smallskip
            \bigskip \hfill \allowbreak \linebreak \nolinebreak \newline \noindent \indent \par
            \medspace \thickspace \negmedspace \negthickspace"""),
        "text symbols": _names(r"""
            \textbar \textless \textgreater \textbackslash \textasciitilde \textasciicircum
            \textunderscore \textbraceleft \textbraceright \textendash \textemdash \textbullet
            \textperiodcentered \textquotedblleft \textquotedblright \dag \ddag \copyright \LaTeX
            \TeX"""),
        "document": _names(r"""
            \begin \end \item \label \ref \pageref \cite \footnote \section \subsection
            \subsubsection \paragraph \subparagraph \nonumber \input \caption"""),
    },
    "amsmath": {
        "greek upper var": _names(r"""
            \varGamma \varDelta \varTheta \varLambda \varXi \varPi \varSigma \varUpsilon \varPhi
            \varPsi \varOmega"""),
        "operators": _names(r"""
            \operatorname \operatornamewithlimits \DeclareMathOperator \injlim \projlim \varlimsup
            \varliminf \varinjlim \varprojlim \pod"""),
        "fractions": _names(r"\dfrac \tfrac \binom \dbinom \tbinom \genfrac \cfrac"),
        "structures": _names(r"""
            \text \overset \underset \sideset \substack \boxed \xrightarrow \xleftarrow \leftroot
            \uproot \hdotsfor \boldsymbol \pmb"""),
        "integrals": _names(r"\iint \iiint \iiiint \idotsint"),
        "delimiters": _names(r"\lvert \rvert \lVert \rVert"),
        "accents": _names(r"""
            \dddot \ddddot \overleftrightarrow \underleftarrow \underrightarrow \underleftrightarrow"""),
        "dots": _names(r"\dotsc \dotsb \dotsm \dotsi \dotso"),
        "arrows": _names(r"\implies \impliedby"),
        "spacing": _names(r"\mspace"),
        "equations": _names(r"""
            \tag \notag \eqref \intertext \allowdisplaybreaks \displaybreak \numberwithin"""),
    },
    "amssymb": {
        "fonts": _names(r"\mathbb \mathfrak"),
        "greek": _names(r"\varkappa \digamma \beth \gimel \daleth"),
        "relations": _names(r"""
            \leqq \leqslant \eqslantless \lesssim \lessapprox \approxeq \lessdot \lll \llless
            \lessgtr \lesseqgtr \lesseqqgtr \doteqdot \risingdotseq \fallingdotseq \backsim
            \backsimeq \subseteqq \Subset \preccurlyeq \curlyeqprec \precsim \precapprox
            \vartriangleleft \trianglelefteq \vDash \Vvdash \smallsmile \smallfrown \bumpeq \Bumpeq
            \geqq \geqslant \eqslantgtr \gtrsim \gtrapprox \gtrdot \ggg \gggtr \gtrless \gtreqless
            \gtreqqless \eqcirc \circeq \triangleq \thicksim \thickapprox \supseteqq \Supset
            \succcurlyeq \curlyeqsucc \succsim \succapprox \vartriangleright
            \trianglerighteq \Vdash \shortmid \shortparallel \between \pitchfork \varpropto
            \blacktriangleleft \blacktriangleright \therefore \because \backepsilon"""),
        "negated relations": _names(r"""
            \nless \nleq \nleqslant \nleqq \lneq \lneqq \lvertneqq \lnsim \lnapprox \nprec \npreceq
            \precneqq \precnsim \precnapprox \nsim \nshortmid \nmid \nvdash \nvDash \ntriangleleft
            \ntrianglelefteq \nsubseteq \subsetneq \varsubsetneq \subsetneqq \varsubsetneqq \ngtr
            \ngeq \ngeqslant \ngeqq \gneq \gneqq \gvertneqq \gnsim \gnapprox \nsucc \nsucceq
            \succneqq \succnsim \succnapprox \ncong \nshortparallel \nparallel \nVdash \nVDash
            \ntriangleright \ntrianglerighteq \nsupseteq \nsupseteqq \supsetneq \varsupsetneq
            \supsetneqq \varsupsetneqq \nsubseteqq"""),
        "binary operators": _names(r"""
            \dotplus \smallsetminus \Cap \doublecap \Cup \doublecup \barwedge \veebar
            \doublebarwedge \boxminus \boxtimes \boxdot \boxplus \divideontimes \ltimes \rtimes
            \leftthreetimes \rightthreetimes \curlywedge \curlyvee \circleddash \circledast
            \circledcirc \centerdot \intercal"""),
        "arrows": _names(r"""
            \dashrightarrow \dashleftarrow \leftleftarrows \leftrightarrows \Lleftarrow
            \twoheadleftarrow \leftarrowtail \looparrowleft \leftrightharpoons \curvearrowleft
            \circlearrowleft \Lsh \upuparrows \upharpoonleft \downharpoonleft \multimap
            \leftrightsquigarrow \rightrightarrows \rightleftarrows \Rrightarrow \twoheadrightarrow
            \rightarrowtail \looparrowright \curvearrowright \circlearrowright \Rsh \downdownarrows
            \upharpoonright \restriction \downharpoonright \rightsquigarrow \nleftarrow \nrightarrow
            \nLeftarrow \nRightarrow \nleftrightarrow \nLeftrightarrow"""),
        "symbols": _names(r"""
            \hslash \vartriangle \triangledown \square \lozenge \circledS \measuredangle \nexists
            \Finv \Game \Bbbk \backprime \varnothing \blacktriangle \blacktriangledown
            \blacksquare \blacklozenge \bigstar \sphericalangle \complement \eth \diagup \diagdown
            \checkmark \circledR \maltese \yen"""),
        "delimiters": _names(r"\ulcorner \urcorner \llcorner \lrcorner"),
    },
}

#: the package of every command (each listed once)
PACKAGE = {name: package for package, groups in COMMANDS.items() for names in groups.values() for name in names}

#: LaTeX's Greek letters as commands: every lower-case letter but omicron (a Latin o), the
#: var forms, the eleven upper-case letters that differ from Latin ones and amsmath's var forms
GREEK = (COMMANDS["latex"]["greek lower"] + COMMANDS["latex"]["greek upper"]
         + COMMANDS["amsmath"]["greek upper var"] + ("\\varkappa", "\\digamma"))


def standard() -> frozenset[str]:
    """Every command of LaTeX, amsmath and amssymb listed in :data:`COMMANDS`."""
    return frozenset(PACKAGE)


def allowed(macros=()) -> frozenset[str]:
    """The commands a fragment may use: :func:`standard` and the names of ``macros``
    (``LatexMeta.macros``: ``(name, definition)`` pairs of the macros the paper defines)."""
    return standard() | {name for name, _definition in macros}
