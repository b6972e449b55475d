"""Loads the maskverify pytest plugin (``verify.plugin``) when the project runs from a checkout
that was not installed (e.g. ``python3 -m pytest`` on a GPU machine with its own torch); an
installed project loads it through its ``pytest11`` entry point instead, and loading it twice
would be an error."""
from importlib.metadata import entry_points

if not any(ep.value == "verify.plugin" for ep in entry_points(group="pytest11")):
    pytest_plugins = ["verify.plugin"]
