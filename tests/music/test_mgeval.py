"""The distance stage on constructed inputs; compat mode against MGEval's formulas (scipy KDE, entropy, quad)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from creval.errors import InputError, UndefinedValue
from creval.music import mgeval as M


def _mgeval_kl(a, b, num_sample=1000):  # MGEval utils.kl_dist, restated
    pa, pb = stats.gaussian_kde(a), stats.gaussian_kde(b)
    return stats.entropy(pa(np.linspace(a.min(), a.max(), num_sample)), pb(np.linspace(b.min(), b.max(), num_sample)))


def _mgeval_oa(a, b):  # MGEval utils.overlap_area, restated
    pa, pb = stats.gaussian_kde(a), stats.gaussian_kde(b)
    lo, hi = min(a.min(), b.min()), max(a.max(), b.max())
    return integrate.quad(lambda x: min(pa(x)[0], pb(x)[0]), lo, hi)[0]  # MGEval: default limit


def test_intra_and_inter_distances_by_hand() -> None:
    x = np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])
    intra = M.intra_set_distances(x)
    assert len(intra) == 3 * 2
    assert sorted(intra) == pytest.approx(sorted([5, 5, 1, 1, np.sqrt(18), np.sqrt(18)]))
    y = np.array([[0.0, 0.0], [6.0, 8.0]])
    inter = M.inter_set_distances(x, y)
    assert len(inter) == 6
    assert sorted(inter) == pytest.approx(sorted([0, 10, 5, 5, 1, np.sqrt(36 + 49)]))
    # features of matrices are flattened: a 2x2 matrix per piece
    m = np.array([[[1, 0], [0, 0]], [[0, 0], [0, 1]]], dtype=float)
    assert M.intra_set_distances(m).tolist() == pytest.approx([np.sqrt(2)] * 2)
    with pytest.raises(InputError, match="different sizes"):
        M.inter_set_distances(np.zeros((2, 3)), np.zeros((2, 4)))


@pytest.mark.parametrize("seed", [0, 1])
def test_compat_matches_mgeval_formulas(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.gamma(3.0, 1.0, 80)
    b = rng.gamma(4.0, 1.2, 120)
    assert M.kl_divergence(a, b, mode="compat") == pytest.approx(_mgeval_kl(a, b), rel=1e-10)
    assert M.overlap_area(a, b, mode="compat") == pytest.approx(_mgeval_oa(a, b), abs=2e-4)


def test_binned_kde_agrees_with_exact() -> None:
    rng = np.random.default_rng(3)
    a = rng.normal(2, 1, 5_000)
    b = rng.normal(2.5, 1.5, 5_000)
    grid = np.linspace(-3, 8, 500)
    exact = M.kde(a, grid, method="exact")
    binned = M.kde(a, grid, method="binned")
    assert np.max(np.abs(exact - binned)) < 1e-5 * exact.max() * 10
    for mode in M.MODES:
        assert M.kl_divergence(a, b, mode=mode, method="binned") == pytest.approx(
            M.kl_divergence(a, b, mode=mode, method="exact"), rel=1e-3)
        assert M.overlap_area(a, b, mode=mode, method="binned") == pytest.approx(
            M.overlap_area(a, b, mode=mode, method="exact"), abs=1e-4)


def test_corrected_mode_known_gaussians() -> None:
    # two large normal samples: KL(N(0,1) || N(1,1)) = 0.5 and OA = 2 * Phi(-1/2) = 0.617
    rng = np.random.default_rng(4)
    a = rng.normal(0, 1, 200_000)
    b = rng.normal(1, 1, 200_000)
    assert M.kl_divergence(a, b, mode="corrected") == pytest.approx(0.5, abs=0.02)
    assert M.overlap_area(a, b, mode="corrected") == pytest.approx(2 * stats.norm.cdf(-0.5), abs=0.01)
    # compat mode misreads the same pair: its two grids are shifted by about one standard deviation
    assert abs(M.kl_divergence(a, b, mode="compat") - 0.5) > 0.2
    # identical samples: KL 0, OA 1 (corrected integrates the full support)
    assert M.kl_divergence(a, a, mode="corrected") == pytest.approx(0.0, abs=1e-9)
    assert M.overlap_area(a, a, mode="corrected") == pytest.approx(1.0, abs=1e-3)


def test_constant_feature_is_reported_not_crashing() -> None:
    gen = np.full((5, 1), 7.0)
    ref = np.full((6, 1), 7.0)
    result = M.compare_feature("pitch_range", gen, ref)
    assert result.status == "constant"
    assert np.isnan(result.kl) and np.isnan(result.oa)
    assert any("constant" in n for n in result.notes)
    assert result.densities() is None
    with pytest.raises(UndefinedValue):
        M.kde(np.ones(10), np.linspace(0, 1, 5))
    # one set constant, the other not: still reported, no exception
    mixed = M.compare_feature("x", np.full((5, 1), 1.0), np.arange(6.0)[:, None])
    assert mixed.status == "constant" and np.isnan(mixed.kl_generated)


def test_nan_pieces_are_left_out_with_a_note() -> None:
    gen = np.array([[1.0], [np.nan], [2.0], [4.0]])
    ref = np.array([[1.5], [2.5], [3.0], [5.0]])
    r = M.compare_feature("avg_pitch_shift", gen, ref)
    assert len(r.intra_generated) == 3 * 2 and len(r.inter) == 3 * 4
    assert any("left out 1 generated" in n for n in r.notes)


def test_compare_sets_similar_vs_different() -> None:
    rng = np.random.default_rng(5)
    ref = {"f": rng.normal(0, 1, (60, 3))}
    same = {"f": rng.normal(0, 1, (60, 3))}
    far = {"f": rng.normal(3, 1, (60, 3))}
    for mode in M.MODES:
        close = M.compare_sets(same, ref, mode=mode)["f"]
        apart = M.compare_sets(far, ref, mode=mode)["f"]
        assert close.oa > apart.oa and close.kl < apart.kl
        assert close.oa > 0.8 and apart.oa < 0.3
    table = M.compare_sets(same, ref).table()
    assert list(table["feature"]) == ["f"] and {"kl", "oa", "status"} <= set(table.columns)
    with pytest.raises(InputError, match="unknown mode"):
        M.compare_sets(same, ref, mode="exactish")
