"""Hypothesis profiles, chosen by the environment variable MASKVERIFY_PROFILE.

- ``dev`` (default) and ``ci``: 60 examples, derandomised, so that the default tier is
  reproducible and never flaky: a failure seen once is seen every time -- for the same
  Hypothesis version (``constraints.txt``), the same sources and the same selection of tests.
  Since Hypothesis 6.131 a derandomised stream also depends on what the session has
  imported: with probability 5% a draw takes a literal from the source of an imported
  local (non-test) module, and the pool of literals grows as modules are imported, so a
  test run alone draws other examples than under ``pytest verify/`` (Corollary 5.4's
  campaign: 38 or 50 float literals in the pool, two different streams).  Hence a property
  must hold on its whole domain, with tolerances from the conditioning of what it compares,
  not only on the examples one run happens to draw.
- ``deep``: 2000 random examples with the example database kept (``.hypothesis/``), so
  that a long campaign explores new ground and a counterexample, once found, is replayed.
  ``python bench/deep_profile.py`` runs every ``property`` test of all packs (slow tier
  included) under it and counts the examples each one ran.

How a test reads the profile: a plain ``@given`` test, a campaign run inside a test without
``settings`` and the ``full`` variant of a two-tier campaign (``verify.strategies.tiers``) take
the profile's count; a heavy test whose dev budget is fixed takes ``examples(n)``, which is the
deep count under ``deep``; a bare ``settings(max_examples=n)`` would hold ``deep`` at n.
"""
from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("dev", max_examples=60, derandomize=True, database=None, **_COMMON)
settings.register_profile("ci", max_examples=60, derandomize=True, database=None, **_COMMON)
settings.register_profile("deep", max_examples=2000, **_COMMON)


def _name() -> str:
    return os.environ.get("MASKVERIFY_PROFILE", "dev")


def load_profile() -> str:
    name = _name()
    settings.load_profile(name)
    return name


def examples(n: int) -> int:
    """A heavy test's example budget: ``n`` under ``dev`` and ``ci``, the deep profile's count
    under ``deep`` (so that the deep run is not held at a cheap tier's budget)."""
    return settings.get_profile("deep").max_examples if _name() == "deep" else n
