"""Arguments of ``correlation_tail`` spanning its whole domain: d from 2 to 10^6 and c from -inf
to inf, with the deep tails (values down to 1e-300 and below the float64 range), the
neighbourhood of c = 0 and of the end points c = +-sqrt(d), and the exact end points."""
from __future__ import annotations

import math

DIMENSIONS = (2, 3, 4, 5, 7, 10, 31, 100, 1000, 10**4, 10**5, 10**6)
#: magnitudes of c, clipped below sqrt(d) per dimension
MAGNITUDES = (1e-300, 1e-12, 1e-6, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 37.0, 38.5)
#: relative distances 1 - c/sqrt(d) to the end point
EDGES = (0.5, 1e-1, 1e-3, 1e-8, 1e-15)


def arguments(dimensions=DIMENSIONS):
    """(c, d) pairs: for every d, +-c over ``MAGNITUDES`` below sqrt d, +-sqrt(d)(1 - e) over
    ``EDGES``, the float sqrt(d) and its neighbours, 2 sqrt(d), +-1e300, +-inf and 0."""
    out = []
    for d in dimensions:
        root = math.sqrt(d)
        cs = [m for m in MAGNITUDES if m < root] + [root * (1 - e) for e in EDGES]
        cs += [root, math.nextafter(root, 0.0), math.nextafter(root, math.inf), 2 * root, 1e300, math.inf]
        out += [(0.0, d)] + [(s * c, d) for c in cs for s in (1.0, -1.0)]
    return out
