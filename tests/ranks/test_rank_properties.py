"""Properties of rank_positive / RankBuilder / rank_metrics for any input (hypothesis),
checked against reference_ranks.py where there is a reference.

Scores include infinities, signed zeros, subnormals and values near the largest float32;
rank counts reach the int32 edges (2**31 - 1, 2**31, 2**32) where no reference needs to
enumerate them; queries may have no candidate. Examples that do not fit a property are
skipped with ``assume``."""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import rankwise as rw
from rankwise.testing import ranks as ref

# 5e-324 is 0 in float32; 3e38 is near the largest float32, so neither overflows the cast.
VALUES = [-np.inf, -3e38, -1.0, -5e-324, -0.0, 0.0, 5e-324, 1e-310, 0.25, 0.5, 1.0, 3e38, np.inf]
NAN_VALUES = VALUES + [np.nan]
POLICIES = ["expected", "realistic", "optimistic", "pessimistic"]
MEAN_METRICS = ["MR", "MRR", "Hits@1", "Hits@3", "AMRI", "AMRR", "AHits@3", "zMR", "zMRR", "zHits@3"]

# One batch: Q queries of N candidates with few distinct values, a mask, positives.
batches = st.tuples(st.integers(1, 6), st.integers(0, 9)).flatmap(lambda qn: st.tuples(
    arrays(np.float64, qn[0], elements=st.sampled_from(VALUES)),
    arrays(np.float64, qn, elements=st.sampled_from(NAN_VALUES)),
    arrays(np.bool_, qn),
    st.sampled_from([np.float32, np.float64]),
))


def reference(pos, neg, mask, nan):
    out = [ref.count_ranks(float(p), [float(x) for x in row], list(m), nan) for p, row, m in zip(pos, neg, mask, strict=True)]
    return [list(col) for col in zip(*out, strict=True)]


def counts_of(ranks):
    return [ranks.greater.tolist(), ranks.equal.tolist(), ranks.n_candidates.tolist()]


@given(batches, st.sampled_from(["ignore", "last"]))
def test_counts_match_reference(batch, nan):
    pos, neg, mask, dtype = batch
    neg = neg.astype(dtype)
    assert counts_of(rw.rank_positive(pos, neg, mask, nan=nan)) == reference(pos, neg, mask, nan)


@given(batches)
def test_raise_policy_raises_exactly_when_an_unmasked_candidate_is_nan(batch):
    pos, neg, mask, _ = batch
    has_nan = bool((np.isnan(neg) & ~mask).any())
    if has_nan:
        with pytest.raises(ValueError, match="NaN"):
            rw.rank_positive(pos, neg, mask)
    else:
        assert counts_of(rw.rank_positive(pos, neg, mask)) == reference(pos, neg, mask, "raise")


@given(batches, st.randoms(use_true_random=False))
def test_order_of_candidates_and_queries_does_not_matter(batch, random):
    pos, neg, mask, _ = batch
    cols = list(range(neg.shape[1]))
    random.shuffle(cols)
    rows = list(range(neg.shape[0]))
    random.shuffle(rows)
    a = rw.rank_positive(pos, neg, mask, nan="last")
    b = rw.rank_positive(pos[rows], neg[rows][:, cols], mask[rows][:, cols], nan="last")
    assert counts_of(b) == counts_of(a[np.array(rows)])


@given(batches, st.sampled_from(["ignore", "last"]))
def test_bounds_and_rank_order(batch, nan):
    pos, neg, mask, _ = batch
    ranks = rw.rank_positive(pos, neg, mask, nan=nan)
    assert np.all(ranks.optimistic <= ranks.realistic) and np.all(ranks.realistic <= ranks.pessimistic)
    assert np.all(ranks.pessimistic <= ranks.n_candidates)
    assert np.all(ranks.n_candidates <= (~mask).sum(axis=1) + 1)
    assert 0 <= ranks.tied_fraction <= 1
    assert 0 <= ranks.mean_relative_width < 1


@given(batches, st.lists(st.integers(0, 9), max_size=4), st.sampled_from(["ignore", "last"]))
def test_builder_over_any_split_equals_one_call(batch, cuts, nan):
    pos, neg, mask, dtype = batch
    neg = neg.astype(dtype)
    n = neg.shape[1]
    bounds = sorted({0, n, *[c for c in cuts if c <= n]})
    builder = rw.RankBuilder(pos, nan=nan)
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        builder.update(neg[:, a:b], mask[:, a:b])
    assert counts_of(builder.ranks()) == counts_of(rw.rank_positive(pos, neg, mask, nan=nan))
    assert counts_of(builder.ranks()) == reference(pos, neg, mask, nan)


@given(batches, st.data())
def test_score_matrix_form_matches_reference(batch, data):
    pos, neg, mask, _ = batch
    assume(neg.shape[1] > 0)
    neg = np.where(np.isnan(neg), 0.5, neg)
    true_index = np.array(data.draw(st.lists(st.integers(0, neg.shape[1] - 1), min_size=len(pos),
                                             max_size=len(pos))))
    got = rw.rank_positive(scores=neg, true_index=true_index, mask=mask)
    want = [ref.count_ranks_with_true_column(list(row), int(t), list(m)) for row, t, m in zip(neg, true_index, mask, strict=True)]
    assert counts_of(got) == [list(col) for col in zip(*want, strict=True)]


# Random Ranks: greater, equal, extra candidates per query.
rank_triples = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 6), st.integers(0, 40)),
                        min_size=1, max_size=12)


# Counts at the int32 edges, for the properties that need no reference (it enumerates ranks).
INT32_EDGES = [2**31 - 1, 2**31, 2**32]
wide_rank_triples = st.lists(st.tuples(st.one_of(st.integers(0, 30), st.sampled_from(INT32_EDGES)),
                                       st.integers(0, 6),
                                       st.one_of(st.integers(0, 40), st.sampled_from(INT32_EDGES))),
                             min_size=1, max_size=12)


def as_ranks(triples):
    g = [t[0] for t in triples]
    e = [t[1] for t in triples]
    c = [t[0] + t[1] + 1 + t[2] for t in triples]
    return rw.Ranks(g, e, c), g, e, c


@given(wide_rank_triples)
def test_expected_lies_between_pessimistic_and_optimistic(triples):
    ranks, *_ = as_ranks(triples)
    names = ["MRR", "Hits@1", "Hits@3", "Hits@10", "AMRR", "AHits@3", "zMRR", "zHits@3"]
    low, mid, high = (rw.rank_metrics(ranks, names, ties=t) for t in ("pessimistic", "expected", "optimistic"))
    real = rw.rank_metrics(ranks, ["MRR"], ties="realistic")
    for name in names:
        if np.isnan(mid[name]):  # adjusted / z with E = 1 or V = 0 under chance: undefined
            continue
        assert low[name] <= mid[name] + 1e-12 and mid[name] <= high[name] + 1e-12, name
    # Jensen: 1 / E[rank] <= E[1 / rank]
    assert real["MRR"] <= mid["MRR"] + 1e-12
    mr = rw.rank_metrics(ranks, ["MR"], ties="realistic")["MR"]
    assert rw.rank_metrics(ranks, ["MR"], ties="expected")["MR"] == pytest.approx(mr, rel=1e-14)


@settings(max_examples=60)
@given(rank_triples, st.sampled_from(POLICIES))
def test_mean_metrics_match_reference(triples, ties):
    ranks, g, e, c = as_ranks(triples)
    got = rw.rank_metrics(ranks, MEAN_METRICS, ties=ties)
    for name in MEAN_METRICS:
        want = ref.reference_metric(name, g, e, c, ties)
        if want is not None:
            assert got[name] == pytest.approx(float(want), rel=1e-10, abs=1e-12), name


@given(wide_rank_triples, rank_triples, st.sampled_from(POLICIES))
def test_concatenation_equals_joined_data(a, b, ties):
    ra, *_ = as_ranks(a)
    rb, *_ = as_ranks(b)
    joined, *_ = as_ranks(a + b)
    both = rw.Ranks.concatenate([ra, rb])
    assert counts_of(both) == counts_of(joined)
    names = ["MR", "MRR", "Hits@3", "E[MRR]", "V[MR]", "AMRI", "zHits@3"]
    x = rw.rank_metrics(both, names, ties=ties)
    y = rw.rank_metrics(joined, names, ties=ties)
    np.testing.assert_equal(x, y)  # NaN (undefined adjusted values) compare equal here
    # a mean over the joined queries is the size-weighted mean of the parts' means
    pa, pb = (rw.rank_metrics(r, ["MRR"], ties=ties)["MRR"] for r in (ra, rb))
    assert x["MRR"] == pytest.approx((len(a) * pa + len(b) * pb) / (len(a) + len(b)), rel=1e-12)


@given(wide_rank_triples, st.sampled_from(["realistic", "optimistic", "pessimistic"]))
def test_metric_ranges(triples, ties):
    ranks, *_ = as_ranks(triples)
    names = ["MR", "MRR", "Hits@5", "HMR", "GMR", "median_rank", "AMR", "AMRI", "AMRR", "AHits@5", "AGMRI"]
    got = rw.rank_metrics(ranks, names, ties=ties)
    r = {"realistic": ranks.realistic, "optimistic": ranks.optimistic, "pessimistic": ranks.pessimistic}[ties]
    assert 0 < got["MRR"] <= 1 and 0 <= got["Hits@5"] <= 1
    # harmonic <= geometric <= arithmetic mean; all within [min, max] of the ranks
    tol = 1e-12 * r.max()
    assert r.min() - tol <= got["HMR"] <= got["GMR"] + tol
    assert got["GMR"] <= got["MR"] + tol and got["MR"] <= r.max() + tol
    assert r.min() <= got["median_rank"] <= r.max()
    assert 0 < got["AMR"] < 2
    for name in ("AMRI", "AMRR", "AHits@5", "AGMRI"):
        if np.isfinite(got[name]):
            assert got[name] <= 1 + 1e-12, name
