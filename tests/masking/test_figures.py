"""The masking pack's Figs. 1-2 (``numerics.masking.figures``, ``maskverify figures --paper
masking``) are written, and their Monte Carlo tells the exact smoothed ReLU (which it matches)
from the paper's proxy (which it rejects at z = 0)."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from numerics.masking import figures
from numerics.app.cli import main
from numerics.core.tolerance import ZTest

NAMES = ("fig1a", "fig1b", "fig2a", "fig2b")
SAMPLES, POINTS = 2000, 41


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("figs")
    figures.make_all(d, samples=SAMPLES, points=POINTS, seed=3, progress=False)
    return d


def test_the_cli_draws_the_chosen_figure(tmp_path, capsys):
    assert main(["figures", "--paper", "masking", "--only", "fig1a", "--quick", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    assert "masking:fig1a" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig1a.csv", "fig1a.json", "fig1a.pdf", "fig1a.png"]


def _load(out, name):
    return json.loads((out / f"{name}.json").read_text())


def _tested_z(data, column):
    return np.array([v for v in data["columns"][column] if v is not None])


def test_every_figure_is_written_as_png_pdf_csv_json(out):
    for name in NAMES:
        png, pdf = (out / f"{name}.png").read_bytes(), (out / f"{name}.pdf").read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 10_000
        assert pdf.startswith(b"%PDF") and len(pdf) > 5_000
        data = _load(out, name)
        rows = list(csv.reader((out / f"{name}.csv").open()))
        assert rows[0] == list(data["columns"])
        assert len(rows) - 1 == len(next(iter(data["columns"].values())))
    assert not list(out.glob("*.tmp"))
    assert len(_load(out, "fig2a")["columns"]["z"]) == POINTS
    assert len(_load(out, "fig1b")["columns"]["kappa"]) == len(figures.KAPPAS_1B)


def test_construction_has_the_stated_geometry():
    z = np.linspace(*figures.Z_RANGE, 7)
    W = figures.weights(z)
    np.testing.assert_allclose(W @ figures.X, z, atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(W * figures.X, axis=1), 1.0, rtol=1e-15)
    with pytest.raises(ValueError, match="sqrt"):
        figures.weights([2.3])


@pytest.mark.parametrize("name", ["fig1b", "fig2a"])
def test_monte_carlo_matches_the_exact_smoothed_relu(out, name):
    data = _load(out, name)
    z = _tested_z(data, "z_vs_sigma_tilde")
    bound = ZTest(alpha=1e-6, comparisons=len(z)).z
    assert len(z) >= 10
    assert np.abs(z).max() <= bound, data["z_mc_vs_sigma_tilde"]
    assert data["z_mc_vs_sigma_tilde"]["within_bound"]
    assert data["z_mc_vs_sigma_tilde"]["bonferroni_z_bound"] == pytest.approx(bound)


def test_monte_carlo_rejects_the_proxy_near_zero(out):
    """Remark 4.4: at z = 0 the proxy misses s varphi(0) = 0.2/sqrt(2 pi) = 0.0798, while the
    Monte Carlo's stderr there is sqrt((1/2 - 1/(2 pi))) 0.2/sqrt(2000) = 0.0026: z ~ 30."""
    data = _load(out, "fig2b")
    i0 = int(np.argmin(np.abs(data["columns"]["z"])))
    assert data["columns"]["z"][i0] == pytest.approx(0.0, abs=1e-12)
    z0 = data["columns"]["z_vs_sigma_hat"][i0]
    bound = ZTest(alpha=1e-6, comparisons=len(_tested_z(data, "z_vs_sigma_hat"))).z
    assert z0 > 3 * bound
    assert data["at_z_nearest_0"]["gap_s_varphi"] == pytest.approx(0.2 / np.sqrt(2 * np.pi), rel=1e-12)
    assert not data["z_mc_vs_sigma_hat"]["within_bound"]


def test_seeded_and_reproducible(out, tmp_path):
    figures.make_all(tmp_path, samples=SAMPLES, points=POINTS, seed=3, progress=False)
    for name in NAMES:
        assert (tmp_path / f"{name}.csv").read_text() == (out / f"{name}.csv").read_text()


@pytest.mark.parametrize("args", [["--seed", "-1"], ["--seed", "many"]])
def test_bad_arguments_are_usage_errors(tmp_path, args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["figures", "--paper", "masking", "--out", str(tmp_path), *args])
    assert exc.value.code == 2
    assert "error" in capsys.readouterr().err


def test_bad_input_to_the_library_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match="samples"):
        figures.make_all(tmp_path, samples=1)
    with pytest.raises(ValueError, match="points"):
        figures.make_all(tmp_path, points=0)
