"""The exponential-count bound shared by the benchmarks (not a test).

A kernel that evaluates N exponentials (``exp``, ``expm1``, ``erfc``, ``erfcx``: the
transcendental work of every quadrature node) cannot run faster than N times the cost of
one ``torch.exp`` on the same device, thread count and run.  ``count_exps`` counts the
elements those calls produce while a function runs (by wrapping them; the counted run is
not timed), ``ns_per_exp`` times ``torch.exp`` on a vector of float64 into a
preallocated buffer (the arithmetic cost; ``fresh=True``: each call allocates a large new
output, the cost when temporaries dominate), and ``bound_line`` prints
``exps/point x ns/exp = bound`` and the fraction of that bound a measured time reaches.
"""
from __future__ import annotations

import contextlib
import math
import time

import torch

#: (owner, attribute) of the calls counted as one exponential per output element
_EXP_FAMILY = (
    (torch, "exp"), (torch, "expm1"), (torch.Tensor, "exp"), (torch.Tensor, "exp_"),
    (torch.Tensor, "expm1"), (torch.special, "expm1"), (torch.special, "erfc"),
    (torch.special, "erfcx"), (torch, "erfc"),
)


@contextlib.contextmanager
def count_exps():
    """Context manager yielding a dict whose ``"n"`` is the number of exponential-family
    elements computed inside it (see ``_EXP_FAMILY``)."""
    box = {"n": 0}
    saved = []

    def wrap(fn):
        def counted(*args, **kwargs):
            out = fn(*args, **kwargs)
            box["n"] += out.numel()
            return out
        return counted

    try:
        for owner, name in _EXP_FAMILY:
            fn = getattr(owner, name)
            saved.append((owner, name, fn))
            setattr(owner, name, wrap(fn))
        yield box
    finally:
        for owner, name, fn in reversed(saved):
            setattr(owner, name, fn)


def ns_per_exp(device="cpu", *, fresh=False, n=None, repeat=20):
    """Nanoseconds per float64 element of ``torch.exp`` on ``device`` with torch's current
    thread count: best of ``repeat`` calls on a vector of n elements (default 2^16 into a
    preallocated buffer, or 2^23 with a freshly allocated output when ``fresh``)."""
    dev = torch.device(device)
    n = n or (1 << 23 if fresh else 1 << 16)
    x = torch.rand(n, dtype=torch.float64, device=dev) * -30.0
    out = torch.empty_like(x)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    best = math.inf
    for _ in range(repeat + 2):
        sync()
        t0 = time.perf_counter()
        if fresh:
            y = torch.exp(x)
        else:
            torch.exp(x, out=out)
        sync()
        best = min(best, time.perf_counter() - t0)
        if fresh:
            del y
    return best / n * 1e9


def ns_compiled_loops(n=1 << 20, repeat=10) -> dict:
    """Nanoseconds per element of out[i] = f(x[i]) in a numba loop on one thread, for libm's
    ``math.exp`` and ``math.sin`` (one scalar call per element: no SIMD without Intel's SVML)
    and the branch-free kernels of ``numerics.core.vmath`` that LLVM vectorises (``exp``,
    ``sin_small``): exp on [-30, 0], sin on [0, pi/2] (the theta rules' range).  Best of
    ``repeat``; keys "libm exp", "vmath exp", "libm sin", "vmath sin"."""
    import numpy as np

    from numerics.core import vmath as vm

    rng = np.random.default_rng(0)
    xs = {"exp": rng.uniform(-30.0, 0.0, n), "sin": rng.uniform(0.0, math.pi / 2, n)}
    out = np.empty(n)
    res = {}
    for name, f, arg in (("libm exp", math.exp, "exp"), ("vmath exp", vm.exp, "exp"),
                         ("libm sin", math.sin, "sin"), ("vmath sin", vm.sin_small, "sin")):
        run, x = vm.elementwise(f), xs[arg]
        run(x[:8], out[:8])
        best = math.inf
        for _ in range(repeat):
            t0 = time.perf_counter()
            run(x, out)
            best = min(best, time.perf_counter() - t0)
        res[name] = best / n * 1e9
    return res


def bound_line(label, exps, points, seconds, ns_exp):
    """One line: exponentials per point, the bound exps x ns/exp, and measured / bound."""
    per = exps / points
    bound_s = exps * ns_exp * 1e-9
    return (f"{label}: {per:.1f} exponentials/point x {ns_exp:.2f} ns = {bound_s * 1e9 / points:.0f} ns/point "
            f"bound; measured {seconds * 1e9 / points:.0f} ns/point = {bound_s / seconds:.1%} of the bound")
