"""rank_metrics: worked values (kg-ties-anchors.md §10) and every metric x tie policy
against the brute-force definitions of reference_ranks.py (tie orderings and chance
rank tuples enumerated literally)."""
import itertools
from fractions import Fraction as F

import numpy as np
import pytest
import scipy.stats

import rankwise as rw
from rankwise.testing import ranks as ref

POLICIES = ["expected", "realistic", "optimistic", "pessimistic"]
CUTOFFS = [1, 2, 3, 10]
BASE_NAMES = ["MR", "MRR", "HMR", "GMR", "IGMR", "IAMR", "median_rank", "inverse_median_rank",
              "rank_std", "rank_var", "rank_mad", "nDCG"] + [f"{m}@{k}" for m in ("Hits", "nDCG") for k in CUTOFFS]
CHANCE_NAMES = (["AMR", "AMRI", "AMRR", "AGMRI", "zMR", "zMRR", "zGMR"]
                + [f"AHits@{k}" for k in CUTOFFS] + [f"zHits@{k}" for k in CUTOFFS]
                + [f"{op}[{m}]" for op in "EV" for m in ["MR", "MRR", "GMR"] + [f"Hits@{k}" for k in CUTOFFS]])
ALL_NAMES = BASE_NAMES + CHANCE_NAMES
# Not means of per-query values: no exact expectation over tie orderings.
NOT_UNDER_EXPECTED = {"HMR", "GMR", "IGMR", "IAMR", "median_rank", "inverse_median_rank",
                      "rank_std", "rank_var", "rank_mad", "AGMRI", "zGMR"}


def close(got, want, rel=1e-12, abs_=1e-14):
    if want is None:  # undefined in the reference (0/0): not checked
        return True
    return got == pytest.approx(float(want), rel=rel, abs=abs_)


# ---------------------------------------------------------------------------
# Worked values (kg-ties-anchors.md §10), to 1e-7
# ---------------------------------------------------------------------------

TABLE_RANKS = rw.Ranks.from_ranks([1, 2, 3, 5], n_candidates=[5, 5, 10, 10])
TABLE = {
    "MR": 2.75, "E[MR]": 4.25, "V[MR]": 1.28125, "AMR": 0.6470588, "AMRI": 0.4615385, "zMR": 1.3251783,
    "MRR": 0.5083333, "E[MRR]": 0.3747817, "V[MRR]": 0.0191708, "AMRR": 0.2136079, "zMRR": 0.9645606,
    "Hits@3": 0.75, "E[Hits@3]": 0.45, "V[Hits@3]": 0.05625, "AHits@3": 0.5454545, "zHits@3": 1.2649111,
    "GMR": 2.3403473, "E[GMR]": 3.6047488, "V[GMR]": 1.1940523, "AGMRI": 0.4854217, "zGMR": 1.1571064,
    "IGMR": 0.4272870, "HMR": 1.9672131, "median_rank": 2.5, "rank_std": 1.4790199, "rank_var": 2.1875,
    "rank_mad": 1.4826022,
}


@pytest.mark.parametrize("ties", ["realistic", "optimistic", "pessimistic"])
def test_adjusted_metrics_table(ties):
    got = rw.rank_metrics(TABLE_RANKS, list(TABLE), ties=ties)
    assert list(got) == list(TABLE)
    for name, value in TABLE.items():
        assert got[name] == pytest.approx(value, abs=1e-7), name


def test_adjusted_metrics_table_under_expected():
    allowed = [name for name in TABLE if name not in NOT_UNDER_EXPECTED]
    got = rw.rank_metrics(TABLE_RANKS, allowed, ties="expected")
    for name in allowed:
        assert got[name] == pytest.approx(TABLE[name], abs=1e-7), name
    for name in sorted(NOT_UNDER_EXPECTED & set(TABLE)):
        with pytest.raises(ValueError, match="expected"):
            rw.rank_metrics(TABLE_RANKS, [name], ties="expected")
    # E[GMR] / V[GMR] do not depend on the tie policy
    got = rw.rank_metrics(TABLE_RANKS, ["E[GMR]", "V[GMR]"], ties="expected")
    assert got["E[GMR]"] == pytest.approx(3.6047488, abs=1e-7)
    assert got["V[GMR]"] == pytest.approx(1.1940523, abs=1e-7)


def test_adjusted_metrics_table_matches_reference():
    g, e, c = [0, 1, 2, 4], [0, 0, 0, 0], [5, 5, 10, 10]
    got = rw.rank_metrics(TABLE_RANKS, list(TABLE), ties="realistic")
    for name in TABLE:
        assert close(got[name], ref.reference_metric(name, g, e, c, "realistic"), rel=1e-11), name


def test_libkge_example_metrics():
    ranks = rw.rank_positive(scores=[10.0, 10.0, 10.0, 11.0, 9.0], true_index=0)
    real = rw.rank_metrics(ranks, ["MR", "MRR", "Hits@3"], ties="realistic")
    assert real == pytest.approx({"MR": 3.0, "MRR": 1 / 3, "Hits@3": 1.0}, abs=1e-7)
    expected = rw.rank_metrics(ranks, ["MR", "MRR", "Hits@3"], ties="expected")
    assert expected == pytest.approx({"MR": 3.0, "MRR": 13 / 36, "Hits@3": 2 / 3}, abs=1e-7)
    assert expected["MRR"] == pytest.approx(0.361111, abs=1e-6)
    assert rw.rank_metrics(ranks, ["MRR"])["MRR"] == pytest.approx(13 / 36, abs=1e-12)  # default policy


def test_two_way_tie_metrics():
    ranks = rw.rank_positive(5.0, [5.0])
    real = rw.rank_metrics(ranks, ["MRR", "Hits@1"], ties="realistic")
    assert real["MRR"] == pytest.approx(0.666667, abs=1e-6) and real["Hits@1"] == 0.0
    exp = rw.rank_metrics(ranks, ["MRR", "Hits@1"], ties="expected")
    assert exp["MRR"] == pytest.approx(0.75, abs=1e-12) and exp["Hits@1"] == pytest.approx(0.5, abs=1e-12)
    opt = rw.rank_metrics(ranks, ["MRR", "Hits@1"], ties="optimistic")
    pess = rw.rank_metrics(ranks, ["MRR", "Hits@1"], ties="pessimistic")
    assert opt == {"MRR": 1.0, "Hits@1": 1.0} and pess == {"MRR": 0.5, "Hits@1": 0.0}


def test_tgb_example_metrics():
    a = rw.rank_positive(1.0, [0.5, 0.9, 2.0])
    got = rw.rank_metrics(a, ["MRR", "Hits@10"], ties="realistic")
    assert got == pytest.approx({"MRR": 0.5, "Hits@10": 1.0}, abs=1e-7)
    b = rw.rank_positive(1.0, [1.0, 1.0, 0.0])
    assert rw.rank_metrics(b, ["MRR"], ties="realistic")["MRR"] == pytest.approx(0.5, abs=1e-7)
    assert rw.rank_metrics(b, ["MRR"], ties="expected")["MRR"] == pytest.approx(0.611111, abs=1e-6)
    assert rw.rank_metrics(b, ["MRR"], ties="expected")["MRR"] == pytest.approx(11 / 18, abs=1e-14)


def test_plain_integer_ranks_are_accepted():
    got = rw.rank_metrics([1, 2, 3, 5], ["MR", "MRR", "Hits@3", "median_rank"], ties="realistic")
    assert got == pytest.approx({"MR": 2.75, "MRR": 0.5083333, "Hits@3": 0.75, "median_rank": 2.5}, abs=1e-7)
    assert rw.rank_metrics(np.array([1, 2, 3, 5]), "MRR")["MRR"] == pytest.approx(0.5083333, abs=1e-7)


# ---------------------------------------------------------------------------
# Names: aliases and PyKEEN's long names give the same numbers; keys as given
# ---------------------------------------------------------------------------

ALIASES = [
    ("MR", ["mr", "mean_rank", "arithmetic_mean_rank"]),
    ("MRR", ["mrr", "inverse_harmonic_mean_rank", "mean_reciprocal_rank"]),
    ("Hits@3", ["hits@3", "hits_at_3", "Success@3", "H@3", "HITS@3"]),
    ("HMR", ["harmonic_mean_rank"]),
    ("GMR", ["geometric_mean_rank"]),
    ("IGMR", ["inverse_geometric_mean_rank"]),
    ("IAMR", ["inverse_arithmetic_mean_rank"]),
    ("median_rank", ["MEDIAN_RANK"]),
    ("inverse_median_rank", ["Inverse_Median_Rank"]),
    ("rank_std", ["standard_deviation"]),
    ("rank_var", ["variance"]),
    ("rank_mad", ["median_absolute_deviation"]),
    ("AMR", ["amr", "adjusted_arithmetic_mean_rank"]),
    ("AMRI", ["amri", "adjusted_arithmetic_mean_rank_index"]),
    ("AMRR", ["adjusted_inverse_harmonic_mean_rank"]),
    ("AHits@3", ["adjusted_hits_at_3", "ahits@3"]),
    ("AGMRI", ["adjusted_geometric_mean_rank_index"]),
    ("zMR", ["z_arithmetic_mean_rank", "zmr"]),
    ("zMRR", ["z_inverse_harmonic_mean_rank"]),
    ("zGMR", ["z_geometric_mean_rank"]),
    ("zHits@3", ["z_hits_at_3", "ZHITS@3"]),
    ("E[MRR]", ["e[mrr]"]),
    ("V[Hits@3]", ["v[hits@3]"]),
]


@pytest.mark.parametrize("canonical, aliases", ALIASES, ids=[a[0] for a in ALIASES])
def test_aliases(canonical, aliases):
    names = [canonical] + aliases
    got = rw.rank_metrics(TABLE_RANKS, names, ties="realistic")
    assert list(got) == names
    for name in aliases:
        assert got[name] == got[canonical], name
    assert got[canonical] == pytest.approx(TABLE.get(canonical, got[canonical]), abs=1e-7)


def test_single_name_string_and_order():
    got = rw.rank_metrics(TABLE_RANKS, "MRR", ties="realistic")
    assert list(got) == ["MRR"]
    names = ["zMR", "MR", "Hits@1", "E[MR]"]
    assert list(rw.rank_metrics(TABLE_RANKS, names, ties="realistic")) == names


# ---------------------------------------------------------------------------
# Chance: E and V by enumerating every rank tuple
# ---------------------------------------------------------------------------


def small_candidate_vectors(seed, count):
    rng = np.random.default_rng(seed)
    vectors = [[1], [2], [7], [1, 1], [3, 5], [7, 1, 4], [2, 3, 4, 5], [6, 6, 6]]
    while len(vectors) < count:
        n = int(rng.integers(1, 5))
        c = rng.integers(1, 8, n).tolist()
        if np.prod(c) <= 1500:
            vectors.append(c)
    return vectors


def weight_vectors(n, rng):
    return [None, rng.integers(1, 5, n).tolist(), np.round(rng.random(n) + 0.05, 3).tolist(),
            [0] + [1] * (n - 1) if n > 1 else [2]]


@pytest.mark.parametrize("c", small_candidate_vectors(1, 14))
def test_chance_moments_match_enumeration(c, rng):
    n = len(c)
    ranks = rw.Ranks(np.zeros(n, int), None, c)
    for weights in weight_vectors(n, rng):
        for base, k in [("MR", None), ("MRR", None), ("GMR", None), ("Hits", 1), ("Hits", 2), ("Hits", 4)]:
            name = base if k is None else f"{base}@{k}"
            e, v = ref.chance_moments_by_enumeration(base, c, k, weights)
            got = rw.rank_metrics(ranks, [f"E[{name}]", f"V[{name}]"], weights=weights)
            assert close(got[f"E[{name}]"], e, rel=1e-12), (name, weights)
            assert close(got[f"V[{name}]"], v, rel=1e-9, abs_=1e-13), (name, weights)
            # the reference's per-query route agrees with the enumeration (oracle self-check)
            e2, v2 = ref.chance_moments(base, c, k, weights)
            assert close(float(e2), e, rel=1e-12) and close(float(v2), v, rel=1e-9, abs_=1e-13)


@pytest.mark.parametrize("ties", POLICIES)
def test_chance_moments_do_not_depend_on_policy(ties):
    ranks = rw.Ranks([0, 3, 1], [2, 0, 4], [9, 8, 12])
    names = ["E[MR]", "V[MR]", "E[MRR]", "V[MRR]", "E[Hits@3]", "V[Hits@3]", "E[GMR]", "V[GMR]"]
    got = rw.rank_metrics(ranks, names, ties=ties)
    for name in names:
        assert close(got[name], ref.reference_metric(name, [0, 3, 1], [2, 0, 4], [9, 8, 12]), rel=1e-11)


def test_chance_adjusted_with_single_candidate():
    # C = 1: every rank is 1 under chance; V = 0.
    ranks = rw.Ranks([0, 0], None, [1, 1])
    got = rw.rank_metrics(ranks, ["E[MR]", "V[MR]", "E[MRR]", "V[MRR]", "E[Hits@1]", "V[Hits@1]", "E[GMR]",
                                  "V[GMR]", "AMR"])
    assert got["E[MR]"] == 1 and got["V[MR]"] == 0 and got["E[MRR]"] == 1 and got["V[MRR]"] == 0
    assert got["E[Hits@1]"] == 1 and got["V[Hits@1]"] == 0 and got["AMR"] == 1
    assert got["E[GMR]"] == pytest.approx(1, abs=1e-15) and got["V[GMR]"] == pytest.approx(0, abs=1e-14)


# ---------------------------------------------------------------------------
# ties="expected": enumerate every tie ordering (jointly over queries)
# ---------------------------------------------------------------------------

TIE_CASES = [
    ([0], [1]), ([1], [2]), ([0], [4]), ([0, 2], [2, 1]), ([3, 0, 1], [1, 3, 0]), ([0, 0, 0], [2, 2, 2]),
    ([5, 1], [3, 0]), ([0, 1, 2, 0], [1, 1, 1, 3]),
]


@pytest.mark.parametrize("greater, equal", TIE_CASES)
def test_expected_by_enumerating_tie_orderings(greater, equal, rng):
    n = len(greater)
    c = [g + e + 1 + extra for g, e, extra in zip(greater, equal, rng.integers(0, 4, n).tolist(), strict=True)]
    ranks = rw.Ranks(greater, equal, c)
    for weights in (None, rng.integers(1, 4, n).tolist()):
        for base, k in [("MR", None), ("MRR", None), ("Hits", 1), ("Hits", 2), ("Hits", 3), ("Hits", 5)]:
            stat = ref.base_statistic(base, k)
            name = base if k is None else f"{base}@{k}"
            want = ref.expected_over_ties(greater, equal, stat, weights)
            e, v = ref.chance_moments(base, c, k, weights)
            adjusted = {"MR": "AMRI", "MRR": "AMRR", "Hits": "AHits"}[base] + ("" if k is None else f"@{k}")
            z = "z" + name
            got = rw.rank_metrics(ranks, [name, adjusted, z], ties="expected", weights=weights)
            assert close(got[name], want), (name, weights)
            if e != 1:
                assert close(got[adjusted], (want - e) / (1 - e), rel=1e-11), (adjusted, weights)
            if v != 0:
                sign = -1 if base == "MR" else 1
                assert close(got[z], sign * float(want - e) / float(v) ** 0.5, rel=1e-10), (z, weights)
        want_mr = ref.expected_over_ties(greater, equal, ref.mr, weights)
        got_amr = rw.rank_metrics(ranks, ["AMR"], ties="expected", weights=weights)["AMR"]
        assert close(got_amr, want_mr / ref.chance_moments("MR", c, None, weights)[0])


def test_expected_reciprocal_rank_is_mcsherry_najork(rng):
    # E[1/r] for r uniform on o..p equals (H(p) - H(o-1)) / (p - o + 1), per query.
    o = rng.integers(1, 60, 200)
    p = o + rng.integers(0, 40, 200)
    ranks = rw.Ranks(o - 1, p - o)
    for i in range(0, 200, 17):
        one = ranks[i]
        want = sum(F(1, j) for j in range(o[i], p[i] + 1)) / (p[i] - o[i] + 1)
        assert close(rw.rank_metrics(one, "MRR")["MRR"], want, rel=1e-14)
        assert close(rw.rank_metrics(one, "MRR")["MRR"], ref.expected_per_query(o[i] - 1, p[i] - o[i], lambda r: F(1, r)),
                     rel=1e-14)
    want = sum(sum(F(1, j) for j in range(a, b + 1)) / (b - a + 1) for a, b in zip(o, p, strict=True)) / 200
    assert close(rw.rank_metrics(ranks, "MRR")["MRR"], want, rel=1e-13)


def test_realistic_and_expected_mr_agree(rng):
    ranks = rw.Ranks(rng.integers(0, 20, 50), rng.integers(0, 6, 50))
    a = rw.rank_metrics(ranks, "MR", ties="realistic")["MR"]
    b = rw.rank_metrics(ranks, "MR", ties="expected")["MR"]
    assert a == pytest.approx(b, rel=1e-15)


# ---------------------------------------------------------------------------
# Random ranks: every metric under every policy against the reference
# ---------------------------------------------------------------------------


def random_ranks(rng, n, max_greater=8, max_equal=4, max_extra=12):
    greater = rng.integers(0, max_greater + 1, n)
    equal = rng.integers(0, max_equal + 1, n) * (rng.random(n) < 0.6)
    c = greater + equal + 1 + rng.integers(0, max_extra + 1, n)
    return greater.tolist(), equal.tolist(), c.tolist()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("weighted", [False, True])
def test_every_metric_against_reference(seed, ties, weighted):
    rng = np.random.default_rng([seed, 7])
    n = int(rng.integers(1, 26))
    greater, equal, c = random_ranks(rng, n)
    weights = None
    if weighted:
        # integer-valued or dyadic weights keep "exactly half the weight" exact in floats
        weights = (rng.integers(0, 4, n) if seed % 2 else rng.integers(1, 9, n) / 4).tolist()
        if sum(weights) == 0:
            weights[0] = 1
    ranks = rw.Ranks(greater, equal, c)
    allowed = [m for m in ALL_NAMES if not (ties == "expected" and m.split("@")[0] in NOT_UNDER_EXPECTED)]
    got = rw.rank_metrics(ranks, allowed, ties=ties, weights=weights)
    assert list(got) == allowed
    for name in allowed:
        want = ref.reference_metric(name, greater, equal, c, ties, weights)
        if name.startswith("V["):
            assert close(got[name], want, rel=1e-9, abs_=1e-15), name
        elif name.startswith("z"):
            assert close(got[name], want, rel=1e-9, abs_=1e-12), name
        else:
            assert close(got[name], want, rel=1e-11, abs_=1e-13), name


@pytest.mark.parametrize("ties", ["realistic", "optimistic", "pessimistic"])
def test_median_std_mad_against_numpy_and_scipy(rng, ties):
    greater, equal, c = random_ranks(rng, 31)
    ranks = rw.Ranks(greater, equal, c)
    r = {"realistic": ranks.realistic, "optimistic": ranks.optimistic, "pessimistic": ranks.pessimistic}[ties]
    r = r.astype(float)
    got = rw.rank_metrics(ranks, ["median_rank", "rank_std", "rank_var", "rank_mad", "GMR", "HMR"], ties=ties)
    assert got["median_rank"] == np.median(r)
    assert got["rank_std"] == pytest.approx(np.std(r), rel=1e-12)
    assert got["rank_var"] == pytest.approx(np.var(r), rel=1e-12)
    assert got["rank_mad"] == pytest.approx(scipy.stats.median_abs_deviation(r, scale="normal"), rel=1e-12)
    assert got["GMR"] == pytest.approx(scipy.stats.gmean(r), rel=1e-12)
    assert got["HMR"] == pytest.approx(scipy.stats.hmean(r), rel=1e-12)
    even = rw.rank_metrics(ranks[:30], ["median_rank"], ties=ties)["median_rank"]
    assert even == np.median(r[:30])


def test_weighted_median_with_equal_weights_is_numpy_median(rng):
    for n in (1, 2, 5, 8, 13):
        greater, equal, c = random_ranks(rng, n)
        ranks = rw.Ranks(greater, equal, c)
        for w in (0.1, 1.0, 3.7):
            got = rw.rank_metrics(ranks, ["median_rank", "rank_mad"], ties="realistic", weights=[w] * n)
            plain = rw.rank_metrics(ranks, ["median_rank", "rank_mad"], ties="realistic")
            assert got["median_rank"] == np.median(ranks.realistic)
            assert got["rank_mad"] == pytest.approx(plain["rank_mad"], rel=1e-14)


def test_integer_weights_act_as_repeats_for_means(rng):
    # (Not for E[GMR] or the variances: a repeated query is an independent draw under chance.)
    greater, equal, c = random_ranks(rng, 12)
    w = rng.integers(0, 4, 12)
    w[0] = 2
    ranks = rw.Ranks(greater, equal, c)
    repeated = rw.Ranks(np.repeat(greater, w), np.repeat(equal, w), np.repeat(c, w))
    names = ["MR", "MRR", "Hits@3", "HMR", "GMR", "IGMR", "IAMR", "median_rank", "rank_std", "rank_var",
             "rank_mad", "E[MR]", "E[MRR]", "E[Hits@3]", "AMRI", "AMRR", "AMR", "AHits@3"]
    a = rw.rank_metrics(ranks, names, ties="realistic", weights=w)
    b = rw.rank_metrics(repeated, names, ties="realistic")
    for name in names:
        assert a[name] == pytest.approx(b[name], rel=1e-12, abs=1e-14), name


def test_weights_scale_free(rng):
    greater, equal, c = random_ranks(rng, 9)
    ranks = rw.Ranks(greater, equal, c)
    w = rng.random(9) + 0.1
    names = ALL_NAMES
    a = rw.rank_metrics(ranks, names, ties="realistic", weights=w)
    b = rw.rank_metrics(ranks, names, ties="realistic", weights=w * 1024)
    for name in names:
        assert a[name] == pytest.approx(b[name], rel=1e-12, abs=1e-15), name


WIDE_LONGDOUBLE = np.finfo(np.longdouble).maxexp > np.finfo(np.float64).maxexp


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble, np.int8, np.uint64, bool])
def test_weights_of_every_real_dtype(dtype):
    greater, equal, c = [0, 2, 5, 1], [1, 0, 2, 0], [4, 6, 12, 3]
    weights = [1, 2, 1, 1] if dtype is not bool else [1, 1, 1, 1]
    names = ["MR", "MRR", "Hits@2", "GMR", "median_rank", "rank_var", "AMRI", "zMRR", "V[MRR]"]
    got = rw.rank_metrics(rw.Ranks(greater, equal, c), names, ties="realistic", weights=np.array(weights, dtype))
    for name in names:
        want = ref.reference_metric(name, greater, equal, c, ties="realistic", weights=weights)
        assert close(got[name], want), name


@pytest.mark.skipif(not WIDE_LONGDOUBLE, reason="longdouble is float64 here")
@pytest.mark.parametrize("exponent", [5000, -5000])
def test_longdouble_weights_beyond_float64_keep_their_ratios(exponent):
    # Only the ratios of the weights matter: longdouble weights are scaled in their own
    # precision, so values beyond float64's range are not refused (nor flushed to 0).
    ranks = rw.Ranks([0, 2, 5, 1], [1, 0, 2, 0], [4, 6, 12, 3])
    weights = np.array([1, 2, 1, 1], np.longdouble)
    names = ["MR", "MRR", "median_rank", "zMRR"]
    scaled = weights * np.ldexp(np.longdouble(1), exponent)
    with np.errstate(over="ignore"):
        as_float64 = scaled.astype(np.float64)
    assert not np.isfinite(as_float64).all() or not as_float64.any()  # beyond float64 indeed
    assert rw.rank_metrics(ranks, names, weights=scaled, ties="realistic") == \
        rw.rank_metrics(ranks, names, weights=weights, ties="realistic")


def test_python_integer_weights_beyond_64_bits():
    # Numbers NumPy keeps only as objects: real weights all the same (only their ratios matter).
    ranks = rw.Ranks([0, 2, 5, 1], [1, 0, 2, 0], [4, 6, 12, 3])
    names = ["MR", "MRR", "median_rank", "zMRR"]
    want = rw.rank_metrics(ranks, names, weights=[1, 2, 1, 1], ties="realistic")
    assert rw.rank_metrics(ranks, names, weights=[2**70, 2**71, 2**70, 2**70], ties="realistic") == want
    with pytest.raises(ValueError, match=r"weights holds 100000000000\.\.\. \(an integer of 401 digits\) at "
                                         r"position 0, beyond the range of float64"):
        rw.rank_metrics(ranks, names, weights=[10**400, 1, 1, 1], ties="realistic")


@pytest.mark.parametrize("weights, match", [
    ([1, np.nan, 1], r"weights must be finite numbers >= 0 \(not all 0\); got nan at position 1"),
    (np.array([1, -1, 1], np.longdouble), "got -1.0 at position 1"),
    (np.array([1, np.inf, 1], np.longdouble), "got inf at position 1"),
    ([0, 0, 0], r"weights must not all be 0"),
])
def test_weights_out_of_range(weights, match):
    with pytest.raises(ValueError, match=match):
        rw.rank_metrics(rw.Ranks([0, 1, 2]), ["MR"], weights=weights)


def test_exhaustive_small_cases_all_policies():
    """Every (greater, equal) with p <= 4 for two queries, C = 5: all metrics, all policies."""
    pairs = [(g, e) for g in range(4) for e in range(4 - g)]
    for (g1, e1), (g2, e2) in itertools.product(pairs, repeat=2):
        greater, equal, c = [g1, g2], [e1, e2], [5, 6]
        ranks = rw.Ranks(greater, equal, c)
        for ties in POLICIES:
            names = [m for m in ["MR", "MRR", "Hits@1", "Hits@2", "GMR", "median_rank", "rank_mad", "AMRI",
                                 "zMRR", "AHits@2", "zGMR"]
                     if not (ties == "expected" and m.split("@")[0] in NOT_UNDER_EXPECTED)]
            got = rw.rank_metrics(ranks, names, ties=ties)
            for name in names:
                want = ref.reference_metric(name, greater, equal, c, ties)
                assert close(got[name], want, rel=1e-10, abs_=1e-13), (name, ties, greater, equal)
        # ties="expected" by joint enumeration of both queries' tie orderings
        want = ref.expected_over_ties(greater, equal, ref.mrr)
        assert close(rw.rank_metrics(ranks, "MRR")["MRR"], want)


# ---------------------------------------------------------------------------
# per_query=True: each query's own value, for paired tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("ties", POLICIES)
def test_per_query_values_against_reference(ties, rng):
    greater, equal, c = random_ranks(rng, 30)
    ranks = rw.Ranks(greater, equal, c)
    got = rw.rank_metrics(ranks, ["MR", "MRR", "Hits@3"], ties=ties, per_query=True)
    per_rank = {"MR": lambda r: r, "MRR": lambda r: 1 / F(r), "Hits@3": lambda r: F(int(r <= 3))}
    for name, f in per_rank.items():
        assert got[name].shape == (30,) and got[name].dtype == np.float64
        for i in range(30):
            if ties == "expected":
                want = ref.expected_per_query(greater[i], equal[i], f)
            else:
                want = f(ref.policy_rank(greater[i], equal[i], ties))
            assert close(got[name][i], want), (name, i)
    means = rw.rank_metrics(ranks, ["MR", "MRR", "Hits@3"], ties=ties)
    for name in means:
        assert means[name] == pytest.approx(got[name].mean(), rel=1e-14)


@pytest.mark.parametrize("name", ["GMR", "median_rank", "AMRI", "zMRR", "E[MRR]"])
def test_per_query_refuses_aggregates(name):
    with pytest.raises(ValueError, match="not a mean of per-query values"):
        rw.rank_metrics(TABLE_RANKS, [name], ties="realistic", per_query=True)
