"""Ranks.from_counts: PyKEEN's and OGB's counts, checked against PyKEEN itself where it installs."""
import numpy as np
import pytest

import rankwise as rw


def _scores(seed=0, n=50, m=30):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 6, n).astype(float), rng.integers(0, 6, (n, m)).astype(float)


def test_counts_two_ways_equal_rank_positive():
    pos, neg = _scores()
    want = rw.rank_positive(pos, neg)
    greater, at_least = (neg > pos[:, None]).sum(1), (neg >= pos[:, None]).sum(1)
    for ranks in (rw.Ranks.from_counts(greater, at_least - greater, neg.shape[1] + 1),
                  rw.Ranks.from_counts(greater, n_candidates=neg.shape[1] + 1, greater_equal=at_least)):
        np.testing.assert_array_equal(ranks.optimistic, want.optimistic)
        np.testing.assert_array_equal(ranks.pessimistic, want.pessimistic)
        assert rw.rank_metrics(ranks, ["MRR", "AMRI"]) == rw.rank_metrics(want, ["MRR", "AMRI"])


@pytest.mark.parametrize("kwargs, error, message", [
    ({"greater": [0, 1], "equal": [0, 0], "greater_equal": [0, 1]}, ValueError, "not both"),
    ({"greater": [0, 2], "greater_equal": [0, 1]}, ValueError, "greater_equal must be at least greater"),
    ({"greater": [0, 2], "greater_equal": [0]}, ValueError, "greater_equal has 1 values"),
    ({"greater": [-1]}, ValueError, "greater"),
    ({"greater": [3], "equal": [1], "n_candidates": [4]}, ValueError, "n_candidates"),
])
def test_bad_counts_are_refused_by_name(kwargs, error, message):
    with pytest.raises(error, match=message):
        rw.Ranks.from_counts(**kwargs)


def test_equals_pykeen():
    torch = pytest.importorskip("torch")
    pykeen_ranks = pytest.importorskip("pykeen.evaluation.ranks")
    pykeen_metrics = pytest.importorskip("pykeen.metrics.ranking")
    pos, neg = _scores(1)
    true_score = torch.tensor(pos)[:, None]
    all_scores = torch.cat([true_score, torch.tensor(neg)], dim=1)
    theirs = pykeen_ranks.Ranks.from_scores(true_score, all_scores)
    ranks = rw.Ranks.from_counts((neg > pos[:, None]).sum(1), n_candidates=neg.shape[1] + 1,
                                 greater_equal=(neg >= pos[:, None]).sum(1))
    np.testing.assert_allclose(ranks.realistic, theirs.realistic.numpy())
    np.testing.assert_array_equal(ranks.optimistic, theirs.optimistic.numpy())
    np.testing.assert_array_equal(ranks.pessimistic, theirs.pessimistic.numpy())
    options = theirs.number_of_options.numpy()
    np.testing.assert_array_equal(ranks.n_candidates, options)
    # PyKEEN's ranks are float32 tensors: its means agree to float32's precision.
    ours = rw.rank_metrics(ranks, ["MRR", "AMRI"], ties="realistic")
    assert ours["MRR"] == pytest.approx(pykeen_metrics.InverseHarmonicMeanRank()(theirs.realistic.numpy()),
                                        rel=1e-6)
    assert ours["AMRI"] == pytest.approx(pykeen_metrics.AdjustedArithmeticMeanRankIndex()(
        theirs.realistic.numpy(), options), rel=1e-6)
