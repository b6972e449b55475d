"""Hypothesis profiles, chosen by the environment variable MASKVERIFY_PROFILE.

- ``dev`` (default) and ``ci``: 60 examples, derandomised, so that the default tier is
  reproducible and never flaky: a failure seen once is seen every time.
- ``deep``: 2000 random examples with the example database kept (``.hypothesis/``), so
  that a long campaign explores new ground and a counterexample, once found, is replayed.
"""
from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("dev", max_examples=60, derandomize=True, database=None, **_COMMON)
settings.register_profile("ci", max_examples=60, derandomize=True, database=None, **_COMMON)
settings.register_profile("deep", max_examples=2000, **_COMMON)


def load_profile() -> str:
    name = os.environ.get("MASKVERIFY_PROFILE", "dev")
    settings.load_profile(name)
    return name
