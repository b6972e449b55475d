"""The verification catalogue as pytest tests: one module per paper section and witness.

Each test carries ``@pytest.mark.statement(id)`` and ``@pytest.mark.witness(kind)`` and may
record its worst error with the ``record`` fixture; ``maskverify check`` runs these tests
and tabulates the outcomes per statement and witness.
"""
