"""rank_metrics(n_items=, correction=): full-catalog metrics estimated from ranks among sampled
negatives (Krichene & Rendle, "On Sampled Metrics for Item Recommendation", KDD 2020), against
the exact definitions of rankwise.testing.ranks (the explicit matrix A, solved in Fractions),
the paper's worked example, and simulations of the sampling itself."""
import doctest
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

import rankwise as rw
from rankwise.ranks import sampled
from rankwise.testing import ranks as ref

POLICIES = ["expected", "realistic", "optimistic", "pessimistic"]
BASES = [("MR", None), ("MRR", None), ("Hits", 1), ("Hits", 3), ("nDCG", None), ("nDCG", 2)]
CORRECTIONS = [("none", None), ("rank", None), ("cls", None), ("bv", 0.1), ("bv", 0.5), ("bv", 1.0)]


def name_of(base, k):
    return base if k is None else f"{base}@{k}"


def table(base, k, m, n, correction, gamma=None, prior=None):
    """rankwise's f(1..m+1): the per-query estimates of the sampled ranks 1..m+1."""
    every = rw.Ranks.from_ranks(np.arange(1, m + 2), n_candidates=[m + 1] * (m + 1))
    name = name_of(base, k)
    return rw.rank_metrics(every, name, n_items=n, correction=correction, gamma=gamma, prior=prior,
                           per_query=True)[name]


def binomial_rows(full, m, n):
    """P(r | R) for r = 1..m+1, one row per full rank."""
    full = np.asarray(full, dtype=np.float64)
    return scipy.stats.binom.pmf(np.arange(m + 1)[None, :], m, ((full - 1) / (n - 1))[:, None])


# ---------------------------------------------------------------------------
# The tables against their written definitions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("base, k", BASES)
@pytest.mark.parametrize("correction, gamma", CORRECTIONS)
@pytest.mark.parametrize("m, n", [(1, 2), (1, 7), (2, 9), (4, 30), (6, 41)])
def test_table_matches_exact_reference(base, k, correction, gamma, m, n):
    want = ref.sampled_table(base, k, m, n, correction, gamma or 0)
    got = table(base, k, m, n, correction, gamma)
    scale = max(1.0, max(abs(float(x)) for x in want))
    np.testing.assert_allclose(got, [float(x) for x in want], rtol=1e-9, atol=1e-10 * scale)


@pytest.mark.parametrize("correction, gamma", [("cls", None), ("bv", 0.25)])
def test_table_with_a_prior_matches_exact_reference(correction, gamma, rng):
    m, n = 3, 25
    prior = rng.integers(0, 5, size=n).astype(float)
    prior[n // 2] = 1.0
    for base, k in BASES:
        want = ref.sampled_table(base, k, m, n, correction, gamma or 0, [F(x) for x in prior])
        got = table(base, k, m, n, correction, gamma, prior)
        np.testing.assert_allclose(got, [float(x) for x in want], rtol=1e-9, atol=1e-10)


def test_prior_scale_does_not_matter():
    prior = np.linspace(1, 3, 40)
    np.testing.assert_allclose(table("MRR", None, 4, 40, "bv", 0.3, prior),
                               table("MRR", None, 4, 40, "bv", 0.3, prior * 1e-200), rtol=1e-12)


@pytest.mark.parametrize("m, n, rtol", [(3, 50, 1e-12), (10, 400, 1e-9), (20, 3000, 1e-5)])
def test_cls_is_exact_for_polynomial_metrics(m, n, rtol):
    # MR is linear in theta_R = (R - 1)/(n - 1), which Bernstein polynomials of degree m span:
    # the minimal bias is zero, E[f(r) | R] = R for every R, up to the conditioning, which
    # worsens about 4-fold per unit of m.
    f = table("MR", None, m, n, "cls")
    full = np.arange(1, n + 1)
    np.testing.assert_allclose(binomial_rows(full, m, n) @ f, full, rtol=rtol)


def test_rank_estimate_of_mr_is_unbiased():
    m, n = 7, 120
    f = table("MR", None, m, n, "rank")
    full = np.arange(1, n + 1)
    np.testing.assert_allclose(binomial_rows(full, m, n) @ f, full, rtol=1e-12)


def test_cls_minimises_bias_among_tables(rng):
    # The minimal-bias table: any perturbation raises sum_R (E[f | R] - M(R))^2.
    m, n = 5, 60
    a = binomial_rows(np.arange(1, n + 1), m, n)
    target = (np.arange(1, n + 1) <= 3).astype(float)
    f = table("Hits", 3, m, n, "cls")
    best = np.sum((a @ f - target) ** 2)
    np.testing.assert_allclose(f, np.linalg.lstsq(a, target, rcond=None)[0], rtol=1e-8, atol=1e-9)
    for _ in range(20):
        assert np.sum((a @ (f + 1e-3 * rng.standard_normal(m + 1)) - target) ** 2) > best


def test_bv_with_gamma_one_is_the_posterior_mean():
    m, n = 6, 80
    a = binomial_rows(np.arange(1, n + 1), m, n)
    reciprocal = 1.0 / np.arange(1, n + 1)
    np.testing.assert_allclose(table("MRR", None, m, n, "bv", 1.0), (a.T @ reciprocal) / a.sum(axis=0),
                               rtol=1e-12)


def test_bv_trades_bias_for_variance():
    # Under the uniform prior: bias^2 grows and variance falls as gamma grows; cls has the least bias.
    m, n, k = 20, 2000, 10
    a = binomial_rows(np.arange(1, n + 1), m, n)
    target = (np.arange(1, n + 1) <= k).astype(float)

    def bias_variance(f):
        mean = a @ f
        return np.mean((mean - target) ** 2), np.mean(a @ f ** 2 - mean ** 2)

    rows = [bias_variance(table("Hits", k, m, n, "cls"))]
    rows += [bias_variance(table("Hits", k, m, n, "bv", g)) for g in (0.001, 0.01, 0.1, 1.0)]
    biases, variances = zip(*rows, strict=True)
    assert list(biases) == sorted(biases)
    assert list(variances) == sorted(variances, reverse=True)


# ---------------------------------------------------------------------------
# Per query: ties, groups of (m, n), means
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("correction, gamma", CORRECTIONS)
def test_every_policy_against_reference(ties, correction, gamma, rng):
    m, n = 5, 31
    greater = rng.integers(0, m, size=40)
    equal = np.minimum(rng.integers(0, 4, size=40), m - greater)
    ranks = rw.Ranks(greater, equal, n_candidates=[m + 1] * 40)
    for base, k in BASES:
        name = name_of(base, k)
        f = ref.sampled_table(base, k, m, n, correction, gamma or 0)
        got = rw.rank_metrics(ranks, name, ties=ties, n_items=n, correction=correction, gamma=gamma,
                              per_query=True)[name]
        want = [float(ref.sampled_query_value(f, int(g), int(e), ties, base, k, m, n, correction))
                for g, e in zip(greater, equal, strict=True)]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10, err_msg=name)


@pytest.mark.parametrize("ties", POLICIES)
def test_no_correction_is_the_plain_metric(ties, rng):
    ranks = rw.Ranks(rng.integers(0, 50, 30), rng.integers(0, 5, 30), n_candidates=[60] * 30)
    names = ["MR", "MRR", "Hits@3", "nDCG", "nDCG@5"]
    assert (rw.rank_metrics(ranks, names, ties=ties, n_items=1000, correction="none")
            == rw.rank_metrics(ranks, names, ties=ties))


def test_queries_with_different_m_and_n(rng):
    m = rng.choice([3, 5, 8], size=60)
    n = rng.choice([40, 90], size=60)
    greater = rng.integers(0, 4, size=60)
    ranks = rw.Ranks(greater, n_candidates=m + 1)
    got = rw.rank_metrics(ranks, ["MRR", "Hits@2"], n_items=n, correction="bv", per_query=True)
    for i in range(60):
        alone = rw.rank_metrics(rw.Ranks([greater[i]], n_candidates=[m[i] + 1]), ["MRR", "Hits@2"],
                                n_items=int(n[i]), correction="bv")
        assert got["MRR"][i] == alone["MRR"] and got["Hits@2"][i] == alone["Hits@2"]


def test_means_are_exact_sums_of_the_estimates(rng):
    ranks = rw.Ranks(rng.integers(0, 30, 500), rng.integers(0, 3, 500), n_candidates=[40] * 500)
    weights = rng.uniform(0.5, 2, 500)
    names = ["MRR", "Hits@10", "nDCG@10", "MR"]
    per = rw.rank_metrics(ranks, names, n_items=5000, correction="bv", gamma=0.05, per_query=True)
    means = rw.rank_metrics(ranks, names, n_items=5000, correction="bv", gamma=0.05)
    weighted = rw.rank_metrics(ranks, names, n_items=5000, correction="bv", gamma=0.05, weights=weights)
    for name in names:
        assert means[name] == pytest.approx(float(np.mean(per[name])), rel=1e-13)
        assert weighted[name] == pytest.approx(float(np.average(per[name], weights=weights)), rel=1e-12)
    assert per.mean() == means


def test_gamma_defaults_to_the_papers_best():
    ranks = rw.Ranks.from_ranks([1, 3, 2], n_candidates=[21] * 3)
    assert (rw.rank_metrics(ranks, "MRR", n_items=500, correction="bv")
            == rw.rank_metrics(ranks, "MRR", n_items=500, correction="bv", gamma=0.1))


# ---------------------------------------------------------------------------
# The paper's toy example: n = 10,000 items, five instances per recommender, ranks among
# 100 sampled negatives; its table of exact and sampled (mean, spread over 1000 samples) values
# ---------------------------------------------------------------------------

TOY = {"A": [100] * 5, "B": [40, 40, 8437, 9266, 4482], "C": [212, 2, 743, 5342, 1548]}
# Exact metrics, and sampled ones as mean and standard deviation over 1000 samples.
TOY_EXACT = {"A": {"MRR": 0.010, "nDCG": 0.150, "Hits@10": 0.0},
             "B": {"MRR": 0.010, "nDCG": 0.122, "Hits@10": 0.0},
             "C": {"MRR": 0.101, "nDCG": 0.208, "Hits@10": 0.2}}
TOY_SAMPLED = {"A": {"MRR": (0.630, 0.129), "nDCG": (0.724, 0.097), "Hits@10": (1.000, 0.000)},
               "B": {"MRR": (0.336, 0.073), "nDCG": (0.444, 0.054), "Hits@10": (0.400, 0.000)},
               "C": {"MRR": (0.325, 0.050), "nDCG": (0.460, 0.039), "Hits@10": (0.567, 0.092)}}
TOY_N, TOY_M = 10_000, 100


def toy_expectation(correction, name, recommender):
    """The exact expectation, over the sampling, of the mean estimate of the five instances."""
    every = rw.Ranks.from_ranks(np.arange(1, TOY_M + 2), n_candidates=[TOY_M + 1] * (TOY_M + 1))
    f = rw.rank_metrics(every, name, n_items=TOY_N, correction=correction, per_query=True)[name]
    p = binomial_rows(TOY[recommender], TOY_M, TOY_N)
    return float(np.mean(p @ f)), float(np.sqrt(np.sum(p @ f ** 2 - (p @ f) ** 2)) / 5)


@pytest.mark.parametrize("recommender", list(TOY))
def test_paper_example_exact_metrics(recommender):
    got = rw.rank_metrics(rw.Ranks.from_ranks(TOY[recommender]), ["MRR", "nDCG", "Hits@10"])
    for name, value in TOY_EXACT[recommender].items():
        assert round(got[name], 3) == value, name


@pytest.mark.parametrize("recommender", list(TOY))
@pytest.mark.parametrize("name", ["MRR", "nDCG", "Hits@10"])
def test_paper_example_sampled_metrics(recommender, name):
    # The paper's numbers are means over 1000 samples: within three of their standard errors
    # (plus the rounding to 3 digits) of the exact expectation, and the spread agrees.
    stated, spread = TOY_SAMPLED[recommender][name]
    mean, sd = toy_expectation("none", name, recommender)
    assert abs(mean - stated) <= 3 * spread / np.sqrt(1000) + 5e-4
    assert abs(sd - spread) <= 5e-3


def test_paper_example_sampling_reverses_and_correction_restores_the_order():
    # Exact: C is best on every top-heavy metric. Sampled: A looks best (a "perfect" Hits@10 for
    # items it never ranked in the top 10). The minimal-bias correction puts C first again, in
    # expectation, within 0.04 of the exact values.
    for name in ["MRR", "nDCG", "Hits@10"]:
        sampled = {rec: toy_expectation("none", name, rec)[0] for rec in TOY}
        corrected = {rec: toy_expectation("cls", name, rec)[0] for rec in TOY}
        assert max(sampled, key=sampled.get) == "A"
        assert max(corrected, key=corrected.get) == "C"
        for rec in TOY:
            assert abs(corrected[rec] - TOY_EXACT[rec][name]) < 0.04
            assert abs(sampled[rec] - TOY_EXACT[rec][name]) > 0.2


# ---------------------------------------------------------------------------
# Simulation: full ranks from a known distribution, negatives actually sampled
# ---------------------------------------------------------------------------

def simulate(rng, n, m, queries):
    """Full ranks with a heavy head, and each query's rank among m negatives drawn
    uniformly with replacement from its n - 1 other items (items are their full ranks)."""
    full = np.minimum(np.ceil(np.exp(rng.uniform(0, np.log(n), queries))), n).astype(np.int64)
    negatives = rng.integers(1, n, size=(queries, m))       # 1..n-1: the other items
    negatives += negatives >= full[:, None]                 # skip the true item's own rank
    greater = (negatives < full[:, None]).sum(axis=1)
    return full, rw.Ranks(greater, n_candidates=[m + 1] * queries)


def test_simulation_sampled_rank_law(rng):
    n, m = 500, 30
    full, ranks = simulate(rng, n, m, 20_000)
    rows = binomial_rows(full, m, n)
    observed = np.bincount(ranks.optimistic - 1, minlength=m + 1)
    expected = rows.sum(axis=0)
    keep = expected > 5
    chi2 = np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep])
    assert scipy.stats.chi2.sf(chi2, keep.sum() - 1) > 1e-4


@pytest.mark.parametrize("name", ["Hits@10", "MRR", "nDCG@10"])
def test_simulation_corrections_estimate_the_full_metric(name, rng):
    n, m, queries = 3000, 20, 40_000
    full, ranks = simulate(rng, n, m, queries)
    truth = rw.rank_metrics(rw.Ranks.from_ranks(full), name)[name]

    def estimates(correction, **options):
        return rw.rank_metrics(ranks, name, n_items=n, correction=correction, per_query=True, **options)[name]

    # Uncorrected, the head-heavy model looks several times better than it is.
    error = abs(estimates("none").mean() - truth)
    assert error > 0.3
    # Minimal bias: the exact expectation of its table is within a tenth of that error (its
    # variance is huge, as the paper warns: the simulation agrees within its own noise).
    cls = estimates("cls")
    every = rw.Ranks.from_ranks(np.arange(1, m + 2), n_candidates=[m + 1] * (m + 1))
    f = rw.rank_metrics(every, name, n_items=n, correction="cls", per_query=True)[name]
    exact = float(np.mean(binomial_rows(full, m, n) @ f))
    assert abs(exact - truth) < error / 10
    assert abs(cls.mean() - exact) < 4 * cls.std() / np.sqrt(queries)
    # Bias and variance under the uniform prior: better than nothing; with the prior that
    # generated the ranks (P(R) = ln(R / (R - 1)) / ln n): unbiased within the noise.
    assert abs(estimates("bv").mean() - truth) < error
    full_ranks = np.arange(1, n + 1)
    prior = np.log(full_ranks) - np.log(np.maximum(full_ranks - 1, 1))
    bv = estimates("bv", prior=prior)
    assert abs(bv.mean() - truth) < 4 * bv.std() / np.sqrt(queries) + 1e-3


def test_simulation_mr_unbiased(rng):
    n, m, queries = 2000, 15, 30_000
    full, ranks = simulate(rng, n, m, queries)
    for correction in ("rank", "cls"):
        per = rw.rank_metrics(ranks, "MR", n_items=n, correction=correction, per_query=True)["MR"]
        assert abs(per.mean() - full.mean()) < 4 * per.std() / np.sqrt(queries)


# ---------------------------------------------------------------------------
# Bad input, read-only input
# ---------------------------------------------------------------------------

R = rw.Ranks([0, 2, 1], [0, 1, 0], n_candidates=[11, 11, 6])


@pytest.mark.parametrize("call, error, match", [
    (lambda: rw.rank_metrics(R, "MRR", correction="bv"), ValueError, "correction= .* n_items="),
    (lambda: rw.rank_metrics(R, "MRR", gamma=0.1), ValueError, "gamma= .* n_items="),
    (lambda: rw.rank_metrics(R, "MRR", prior=[1.0]), ValueError, "prior= .* n_items="),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100), ValueError, "correction must be one of"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="CLS"), ValueError, "correction must be"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction=1), ValueError, "correction must be"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=10, correction="bv"), ValueError, "n_items: query 0 has 11"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=[100, 100], correction="bv"), ValueError,
     "n_items must be one number or one per query"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100.5, correction="bv"), ValueError, "n_items must hold whole"),
    (lambda: rw.rank_metrics(R, "MRR", n_items="100", correction="bv"), TypeError, "n_items"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=1, correction="bv"), ValueError, "n_items must be >= 2"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=2**53, correction="bv"), ValueError, "n_items must be at most"),
    (lambda: rw.rank_metrics(rw.Ranks([0, 0], n_candidates=[1, 5]), "MRR", n_items=10, correction="rank"),
     ValueError, "query 0 has 1 candidates"),
    (lambda: rw.rank_metrics(rw.Ranks.from_ranks([1, 2]), "MRR", n_items=10, correction="rank"), ValueError,
     "needs each query's number of candidates"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="rank", gamma=0.1), ValueError,
     "gamma weighs the variance of correction='bv' only"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="bv", gamma=0), ValueError, r"gamma must be in \(0, 1\]"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="bv", gamma=1.5), ValueError, "gamma must be in"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="bv", gamma=float("nan")), ValueError,
     "gamma must be in"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="bv", gamma=True), TypeError, "gamma must be a"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="bv", gamma="0.1"), TypeError, "gamma must be a"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="rank", prior=np.ones(100)), ValueError,
     "prior weighs the full ranks of correction='cls' or 'bv' only"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="cls", prior=np.ones(99)), ValueError,
     r"prior must have one weight per full rank 1..n_items \(100\)"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="cls", prior=-np.ones(100)), ValueError,
     "prior must hold finite weights >= 0"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="cls", prior=np.zeros(100)), ValueError,
     "not all 0"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="cls", prior=np.full(100, np.nan)), ValueError,
     "prior must hold finite"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="cls", prior=["a"] * 100), TypeError,
     "prior must be numeric"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=[100, 100, 90], correction="cls", prior=np.ones(100)),
     ValueError, "prior needs one n_items for every query"),
    (lambda: rw.rank_metrics(R, "MRR", n_items=100, correction="bv", prior=np.eye(1, 100, 0).ravel()),
     ValueError, "strictly between 1 and n_items"),
    (lambda: rw.rank_metrics(R, "AMRI", n_items=100, correction="bv"), ValueError,
     "'AMRI' cannot be estimated from sampled ranks"),
    (lambda: rw.rank_metrics(R, "GMR", n_items=100, correction="bv", ties="realistic"), ValueError,
     "'GMR' cannot be estimated"),
    (lambda: rw.rank_metrics(R, "E[MRR]", n_items=100, correction="bv"), ValueError, "cannot be estimated"),
])
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_read_only_inputs_are_accepted_and_unchanged():
    n_items = np.array([100, 100, 80])
    prior = np.linspace(1, 2, 100)
    for arr in (n_items, prior):
        arr.flags.writeable = False
    keep = (n_items.copy(), prior.copy())
    rw.rank_metrics(R, ["MRR", "nDCG@3"], n_items=n_items, correction="bv")
    rw.rank_metrics(R, ["MRR", "nDCG@3"], n_items=100, correction="cls", prior=prior)
    np.testing.assert_array_equal(n_items, keep[0])
    np.testing.assert_array_equal(prior, keep[1])


@pytest.mark.parametrize("m, n", [(1, 129), (5, 700), (40, 5121), (100, 10**5)])
def test_euler_maclaurin_sums_match_direct_sums(m, n):
    # The uniform prior's closed-form path against the chunked sums (forced by a flat prior).
    flat = np.ones(n)
    np.testing.assert_allclose(sampled.gram_sums(m, n, None), sampled.gram_sums(m, n, flat), rtol=1e-12)
    np.testing.assert_allclose(sampled.target_sums("MR", None, m, n, None),
                               sampled.target_sums("MR", None, m, n, flat), rtol=1e-12)


@pytest.mark.parametrize("base, k", [("MRR", None), ("nDCG", None), ("nDCG", 40_000)])
@pytest.mark.parametrize("m, n", [(1, 1000), (7, 5000), (60, 10**5)])
def test_smooth_tail_matches_direct_sums(base, k, m, n):
    # MRR's and nDCG's far ranks by Euler-Maclaurin against the chunked sums (a flat prior).
    np.testing.assert_allclose(sampled.target_sums(base, k, m, n, None),
                               sampled.target_sums(base, k, m, n, np.ones(n)), rtol=1e-12)


def test_large_catalog():
    # n = 10**6 full ranks, m = 50, no n x m matrix: the posterior mean of Hits@1 must still be
    # P(R = 1 | r) = p(r | 1) / sum_R p(r | R), which is 1 / sum_R (1 - theta_R)^m at r = 1.
    n, m = 10**6, 50
    f = table("Hits", 1, m, n, "bv", 1.0)
    assert f[0] == pytest.approx(1.0 / np.sum((np.arange(n) / (n - 1)) ** m), rel=1e-10)
    assert np.all(f[1:] == 0)


DOC = Path(__file__).resolve().parents[2] / "docs" / "sampled-metrics.md"


@pytest.mark.skipif(not DOC.exists(), reason="docs/ is only in a source checkout")
def test_doc_examples():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
