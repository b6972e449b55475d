"""Shared fixtures for the verification tests: Hypothesis profiles and result recording."""
from __future__ import annotations

import pytest

from verify.profiles import load_profile

load_profile()


@pytest.fixture
def record(request):
    """Record a witness's measured figures for the check table.

    ``record(error=..., digits=..., ratio=..., detail=...)``; repeated calls keep the worst
    error (largest), the fewest digits and the largest ratio.
    """
    props = dict(request.node.user_properties)

    def _record(*, error=None, digits=None, ratio=None, detail=None):
        if error is not None:
            props["error"] = max(float(error), props.get("error", float("-inf")))
        if digits is not None:
            props["digits"] = min(float(digits), props.get("digits", float("inf")))
        if ratio is not None:
            props["ratio"] = max(float(ratio), props.get("ratio", float("-inf")))
        if detail is not None:
            props["detail"] = str(detail)
        request.node.user_properties[:] = list(props.items())

    return _record
