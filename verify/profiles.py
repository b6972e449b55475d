"""Hypothesis profiles: ``dev`` (default), ``ci`` (derandomised, chosen when CI is set) and
``deep`` (long campaigns); override with the environment variable MASKVERIFY_PROFILE."""
from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, **_COMMON)
settings.register_profile("ci", max_examples=60, derandomize=True, **_COMMON)
settings.register_profile("deep", max_examples=2000, **_COMMON)


def load_profile() -> str:
    name = os.environ.get("MASKVERIFY_PROFILE", "ci" if os.environ.get("CI") else "dev")
    settings.load_profile(name)
    return name
