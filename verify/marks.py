"""Helpers to tag tests with the statement they witness."""
from __future__ import annotations

import pytest


def per_statement(ids):
    """Parametrize values over statement ids, each tagged with its ``statement`` marker."""
    return [pytest.param(sid, marks=pytest.mark.statement(sid), id=sid) for sid in ids]
