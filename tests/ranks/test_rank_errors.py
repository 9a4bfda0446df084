"""Bad input to rank_positive, Ranks, RankBuilder and rank_metrics: a clear exception
naming the argument (and the query, where there is one), raised before any work."""
import numpy as np
import pytest

import rankwise as rw

Z = np.zeros((2, 4))
POS = [0.1, 0.2]


@pytest.mark.parametrize("call, exc, match", [
    # shapes
    (lambda: rw.rank_positive([0.1, 0.2, 0.3], Z), ValueError, "neg_scores has 2 rows for 3 queries"),
    (lambda: rw.rank_positive(POS, np.zeros((2, 5, 1))), ValueError, "neg_scores must be 2-D"),
    (lambda: rw.rank_positive([[0.1, 0.2]], Z), ValueError, "pos_score must be a number or 1-D"),
    (lambda: rw.rank_positive(POS, Z, indptr=[0, 2, 4]), ValueError, "indptr"),
    (lambda: rw.rank_positive(POS, np.zeros(5), indptr=[0, 2, 3, 5]), ValueError, "indptr describes 3 queries"),
    (lambda: rw.rank_positive(POS, np.zeros(5), indptr=[0, 2, 4]), ValueError, "indptr must start at 0 and end at"),
    (lambda: rw.rank_positive([0.1, 0.2, 0.3], np.zeros(5), indptr=[0, 3, 2, 5]), ValueError, "non-decreasing"),
    (lambda: rw.rank_positive(POS, np.zeros(5), indptr=[0.0, 2.0, 5.0]), TypeError, "indptr must hold integers"),
    (lambda: rw.rank_positive(scores=np.zeros(5), true_index=[0, 1], indptr=[0, 2, 6]), ValueError, "indptr"),
    (lambda: rw.rank_positive(scores=np.zeros(5), true_index=[0, 1, 0], indptr=[0, 2, 5]), ValueError,
     "true_index must have one column index per query"),
    # masks
    (lambda: rw.rank_positive(POS, Z, np.zeros((2, 3), bool)), ValueError, "mask must have the shape"),
    (lambda: rw.rank_positive(POS, Z, np.zeros((2, 4), int)), TypeError, "mask must be a boolean"),
    (lambda: rw.rank_positive(POS, Z, np.zeros((2, 4), float)), TypeError, "mask must be a boolean"),
    (lambda: rw.rank_positive(POS, np.zeros(5), np.zeros(4, bool)), ValueError, "mask must have the shape"),
    (lambda: rw.rank_positive(POS, np.zeros(5), np.zeros((3, 5), bool)), ValueError, "mask must have the shape"),
    (lambda: rw.rank_positive(POS, np.zeros(5), np.zeros(5, int)), TypeError, "mask must be a boolean"),
    (lambda: rw.rank_positive(POS, np.zeros(5), np.zeros(4, bool), indptr=[0, 2, 5]), ValueError,
     "mask must have the shape"),
    (lambda: rw.rank_positive(scores=Z, true_index=[0, 1], mask=np.zeros((2, 3), bool)), ValueError,
     "mask must have the shape"),
    # NaN
    (lambda: rw.rank_positive([0.1, np.nan], Z), ValueError, "pos_score is NaN for query 1"),
    (lambda: rw.rank_positive(np.nan, np.zeros(4)), ValueError, "pos_score is NaN"),
    (lambda: rw.rank_positive([0.1, np.nan], Z, nan="ignore"), ValueError, "pos_score is NaN for query 1"),
    (lambda: rw.rank_positive([0.1, np.nan], Z, nan="last"), ValueError, "pos_score is NaN for query 1"),
    (lambda: rw.rank_positive(scores=[[0.0, np.nan], [1.0, 2.0]], true_index=[1, 0], nan="last"), ValueError,
     "NaN for query 0"),
    (lambda: rw.rank_positive(POS, [[0.0, 1.0], [np.nan, 2.0]]), ValueError, "NaN.*query 1"),
    (lambda: rw.rank_positive(POS, [[0.0, 1.0], [np.nan, 2.0]]), ValueError, "nan='ignore'"),
    (lambda: rw.rank_positive(POS, np.array([0.0, 1.0, np.nan, 3.0]), indptr=[0, 2, 4]), ValueError,
     "NaN.*query 1"),
    (lambda: rw.rank_positive(POS, np.array([0.0, 1.0, np.nan])), ValueError, "NaN"),
    (lambda: rw.rank_positive(scores=[[0.0, 1.0], [2.0, np.nan]], true_index=[0, 0]), ValueError,
     "NaN.*query 1"),
    (lambda: rw.rank_positive(POS, Z, nan="skip"), ValueError, "nan must be one of"),
    # both forms, or neither
    (lambda: rw.rank_positive(POS, Z, scores=Z, true_index=[0, 1]), ValueError, "either"),
    (lambda: rw.rank_positive(POS, scores=Z, true_index=[0, 1]), ValueError, "either"),
    (lambda: rw.rank_positive(scores=Z), ValueError, "scores= and true_index="),
    (lambda: rw.rank_positive(true_index=[0, 1]), ValueError, "scores= and true_index="),
    (lambda: rw.rank_positive(POS), TypeError, "neg_scores"),
    # true_index
    (lambda: rw.rank_positive(scores=Z, true_index=[0, 4]), ValueError, r"true_index\[1\] = 4"),
    (lambda: rw.rank_positive(scores=Z, true_index=[0, -1]), ValueError, r"true_index\[1\] = -1"),
    (lambda: rw.rank_positive(scores=Z, true_index=[0.0, 1.0]), TypeError, "true_index must hold integer"),
    (lambda: rw.rank_positive(scores=Z, true_index=["a", "b"]), TypeError, "true_index must hold integer"),
    (lambda: rw.rank_positive(scores=Z, true_index=[0, 1, 2]), ValueError, "one column index per query"),
    (lambda: rw.rank_positive(scores=np.zeros(5), true_index=[0, 3], indptr=[0, 2, 5]), ValueError,
     r"true_index\[1\] = 3"),
    # dtypes
    (lambda: rw.rank_positive(POS, np.array([["a", "b"], ["c", "d"]])), TypeError, "neg_scores must be numeric"),
    (lambda: rw.rank_positive(POS, np.array([[2**60, 1], [0, 1]])), ValueError, r"2\*\*53"),
    (lambda: rw.rank_positive(["x", "y"], Z), TypeError, "pos_score"),
    (lambda: rw.rank_positive(POS, Z, n_threads=0), ValueError, "n_threads"),
    (lambda: rw.rank_positive(POS, Z, n_threads=1.5), TypeError, "n_threads"),
])
def test_rank_positive_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


R = rw.Ranks.from_ranks([1, 2, 3], n_candidates=[3, 3, 4])
NO_C = rw.Ranks.from_ranks([1, 2])


@pytest.mark.parametrize("call, exc, match", [
    (lambda: rw.Ranks([-1]), ValueError, "greater must be >= 0"),
    (lambda: rw.Ranks([1], [-1]), ValueError, "equal must be >= 0"),
    (lambda: rw.Ranks([1], [0], [0]), ValueError, "n_candidates must be >= 1"),
    (lambda: rw.Ranks([1], [2], [3]), ValueError, "n_candidates.*below the pessimistic rank 4"),
    (lambda: rw.Ranks([0, 5], [0, 0], [3, 5]), ValueError, r"n_candidates\[1\] = 5"),
    (lambda: rw.Ranks([1, 2], [2]), ValueError, "equal has 1 values"),
    (lambda: rw.Ranks([1, 2], [2, 0], [4]), ValueError, "n_candidates has 1 values"),
    (lambda: rw.Ranks([0.5]), ValueError, "greater must hold whole numbers"),
    (lambda: rw.Ranks([np.nan]), ValueError, "greater must hold whole numbers"),
    (lambda: rw.Ranks(["a"]), TypeError, "greater must hold integers"),
    (lambda: rw.Ranks([True]), TypeError, "greater must hold integers"),
    (lambda: rw.Ranks([1], np.array([0], dtype=object)), TypeError, "equal must hold integers"),
    (lambda: rw.Ranks([[1]]), ValueError, "greater must be 1-D"),
    (lambda: rw.Ranks.from_ranks([1.5]), ValueError, "whole numbers"),
    (lambda: rw.Ranks.from_ranks([2.5, 3]), ValueError, "Ranks\\(greater="),
    (lambda: rw.Ranks.from_ranks([0]), ValueError, "ranks must be >= 1"),
    (lambda: rw.Ranks.from_ranks([1, 4], [3, 3]), ValueError, "below the pessimistic rank"),
    (lambda: rw.Ranks.from_ranks(["1"]), TypeError, "ranks must hold integers"),
    (lambda: rw.Ranks.concatenate([]), TypeError, "non-empty sequence of Ranks"),
    (lambda: rw.Ranks.concatenate([R, [1]]), TypeError, "sequence of Ranks"),
    (lambda: NO_C.mean_relative_width, ValueError, "n_candidates"),
])
def test_ranks_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("call, exc, match", [
    (lambda: rw.rank_metrics(R, ["Hits@0"]), ValueError, "k must be >= 1"),
    (lambda: rw.rank_metrics(R, ["Hits@-1"]), ValueError, "k must be >= 1"),
    (lambda: rw.rank_metrics(R, ["hits_at_0"]), ValueError, "k must be >= 1"),
    (lambda: rw.rank_metrics(R, ["AHits@0"]), ValueError, "k must be >= 1"),
    (lambda: rw.rank_metrics(R, ["Hits@x"]), ValueError, "Hits@x"),
    (lambda: rw.rank_metrics(R, ["Hits"]), ValueError, "needs a cutoff"),
    (lambda: rw.rank_metrics(R, ["zHits"]), ValueError, "needs a cutoff"),
    (lambda: rw.rank_metrics(R, ["MRRR"]), ValueError, "did you mean 'MRR'"),
    (lambda: rw.rank_metrics(R, ["AMRRI"]), ValueError, "did you mean"),
    (lambda: rw.rank_metrics(R, ["P@10"]), ValueError, "unknown rank metric 'P@10'"),
    (lambda: rw.rank_metrics(R, ["nDCG@0"]), ValueError, "k must be >= 1"),
    (lambda: rw.rank_metrics(R, ["E[nDCG@10]"]), ValueError, "expectations, variances and z-scores"),
    (lambda: rw.rank_metrics(R, ["MR@3"]), ValueError, "MR takes no cutoff"),
    (lambda: rw.rank_metrics(R, ["zMedian_rank"]), ValueError, "z-scores"),
    (lambda: rw.rank_metrics(R, ["E[HMR]"]), ValueError, "E\\[HMR\\]"),
    (lambda: rw.rank_metrics(R, [3]), TypeError, "strings"),
    (lambda: rw.rank_metrics(R, []), ValueError, "at least one metric"),
    # chance metrics need n_candidates
    (lambda: rw.rank_metrics(NO_C, ["AMRI"]), ValueError, "AMRI.*number of candidates"),
    (lambda: rw.rank_metrics(NO_C, ["E[MRR]"]), ValueError, "number of candidates"),
    (lambda: rw.rank_metrics(NO_C, ["V[Hits@3]"]), ValueError, "number of candidates"),
    (lambda: rw.rank_metrics(NO_C, ["zMR"], ties="realistic"), ValueError, "number of candidates"),
    (lambda: rw.rank_metrics(NO_C, ["AMR"], ties="optimistic"), ValueError, "number of candidates"),
    (lambda: rw.rank_metrics([1, 2], ["AGMRI"], ties="realistic"), ValueError, "number of candidates"),
    # ties="expected" and the non-mean metrics
    *[(lambda name=name: rw.rank_metrics(R, [name], ties="expected"), ValueError,
       f"{name}.*ties='expected'")
      for name in ["HMR", "GMR", "IGMR", "IAMR", "median_rank", "inverse_median_rank", "rank_std",
                   "rank_var", "rank_mad", "AGMRI", "zGMR"]],
    (lambda: rw.rank_metrics(R, ["GMR"]), ValueError, "expected"),  # the default policy
    (lambda: rw.rank_metrics(R, ["MR"], ties="random"), ValueError, "ties must be one of"),
    (lambda: rw.rank_metrics(R, ["MR"], ties="stable"), ValueError, "ties must be one of"),
    # weights
    (lambda: rw.rank_metrics(R, ["MR"], weights=[1, 2]), ValueError, "weights must have one value per query"),
    (lambda: rw.rank_metrics(R, ["MR"], weights=[[1, 2, 3]]), ValueError, "weights"),
    (lambda: rw.rank_metrics(R, ["MR"], weights=[1, -2, 1]), ValueError, "weights must be finite numbers >= 0 .*; got -2.0 at position 1"),
    (lambda: rw.rank_metrics(R, ["MR"], weights=[1, np.nan, 1]), ValueError, "weights must be finite"),
    (lambda: rw.rank_metrics(R, ["MR"], weights=[1, np.inf, 1]), ValueError, "weights must be finite"),
    (lambda: rw.rank_metrics(R, ["MR"], weights=[0, 0, 0]), ValueError, "not all 0"),
    (lambda: rw.rank_metrics(R, ["MR"], weights=["a", "b", "c"]), TypeError, "weights must be numeric"),
    # ranks
    (lambda: rw.rank_metrics(rw.Ranks([]), ["MR"]), ValueError, "no query"),
    (lambda: rw.rank_metrics([1.5, 2], ["MR"]), ValueError, "whole numbers"),
    (lambda: rw.rank_metrics([0, 2], ["MR"]), ValueError, ">= 1"),
])
def test_rank_metrics_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("call, exc, match", [
    (lambda: rw.RankBuilder([0.1, np.nan]), ValueError, "pos_score is NaN for query 1"),
    (lambda: rw.RankBuilder([0.1], nan="x"), ValueError, "nan must be one of"),
    (lambda: rw.RankBuilder([0.1], true_index=[-1]), ValueError, r"true_index\[0\] = -1"),
    (lambda: rw.RankBuilder([0.1], true_index=[0.5]), TypeError, "true_index must hold integer"),
    (lambda: rw.RankBuilder([0.1, 0.2], true_index=[0]), ValueError, "one column index per query"),
    (lambda: rw.RankBuilder([0.1], true_index=[0]).update([[0.1]]), ValueError, "start="),
    (lambda: rw.RankBuilder([0.1]).update([[0.1]], start=0), ValueError, "start="),
    (lambda: rw.RankBuilder([0.1, 0.2]).update(np.zeros(3), indptr=[0, 1]), ValueError, "indptr"),
    (lambda: rw.RankBuilder([0.1, 0.2]).update(np.zeros(3)), ValueError, "neg_scores must be 2-D"),
    (lambda: rw.RankBuilder([0.1, 0.2]).update(np.zeros((3, 2))), ValueError, "3 rows for 2 queries"),
    (lambda: rw.RankBuilder([0.1, 0.2]).update([[0.1], [np.nan]]), ValueError, "NaN.*query 1"),
    (lambda: rw.RankBuilder([0.1, 0.2]).update(np.zeros((2, 2)), np.zeros((2, 3), bool)), ValueError,
     "mask must have the shape"),
])
def test_rank_builder_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_errors_do_not_modify_inputs():
    neg = np.array([[0.3, np.nan], [0.1, 0.2]])
    pos = np.array([0.2, 0.1])
    neg.flags.writeable = False
    pos.flags.writeable = False
    with pytest.raises(ValueError):
        rw.rank_positive(pos, neg)
    np.testing.assert_array_equal(neg, [[0.3, np.nan], [0.1, 0.2]])
    np.testing.assert_array_equal(pos, [0.2, 0.1])


# ---------------------------------------------------------------------------
# Issue 21: counts beyond what float64 holds exactly, unsigned and other dtypes,
# start= of the streaming builder, cutoffs beyond int64, the metrics argument.
# ---------------------------------------------------------------------------

U64 = np.uint64
TOO_BIG = r"must be at most 2\*\*52 = 4503599627370496"


@pytest.mark.parametrize("call, exc, match", [
    # the example: the pessimistic rank used to wrap to a negative number
    (lambda: rw.Ranks([2**62], [2**62], [2**63 - 1]), ValueError, rf"greater {TOO_BIG}.*found 4611686018427387904"),
    (lambda: rw.Ranks([0], [2**62]), ValueError, rf"equal {TOO_BIG}"),
    (lambda: rw.Ranks([0], [0], [2**52 + 1]), ValueError, rf"n_candidates {TOO_BIG}.*found 4503599627370497"),
    (lambda: rw.Ranks([2**51], [2**51]), ValueError,
     r"greater \+ equal \+ 1 \(the pessimistic rank\) must be at most 2\*\*52 = 4503599627370496; query 0 has "
     r"greater = 2251799813685248, equal = 2251799813685248"),
    (lambda: rw.Ranks(np.array([2**63], dtype=U64)), ValueError, rf"greater {TOO_BIG}.*found 9223372036854775808"),
    (lambda: rw.Ranks(np.array([2**64 - 1], dtype=U64)), ValueError, rf"greater {TOO_BIG}"),
    (lambda: rw.Ranks([1e300]), ValueError, rf"greater {TOO_BIG}.*found 1e\+300"),
    (lambda: rw.Ranks([-1e300]), ValueError, "greater must be >= 0; found -1e\\+300"),
    (lambda: rw.Ranks(np.array([np.inf], np.float16)), ValueError, "greater must hold whole numbers; found inf"),
    (lambda: rw.Ranks(np.array([2**52 + 2], np.longdouble)), ValueError, rf"greater {TOO_BIG}"),
    (lambda: rw.Ranks.from_ranks(np.array([2**64 - 1], dtype=U64)), ValueError, rf"ranks {TOO_BIG}"),
    (lambda: rw.Ranks.from_ranks([2**52 + 1]), ValueError, rf"ranks {TOO_BIG}"),
    (lambda: rw.Ranks.from_ranks([1], n_candidates=np.array([2**63], dtype=U64)), ValueError,
     rf"n_candidates {TOO_BIG}"),
    (lambda: rw.Ranks.from_ranks([np.nan]), ValueError, "ranks must hold whole numbers; found nan at position 0"),
    (lambda: rw.Ranks.from_ranks([np.inf]), ValueError, "ranks must hold whole numbers; found inf"),
    # Python ints beyond int64 (NumPy makes floats or objects of them): out of range, not of the wrong type
    (lambda: rw.Ranks([2**64, 1]), ValueError,
     r"greater must hold integers from 0 to 2\*\*52 = 4503599627370496; got 18446744073709551616 at position 0"),
    (lambda: rw.Ranks([0], [0], [-(2**63) - 1]), ValueError, "n_candidates must hold integers from 1 .*got -9223"),
    (lambda: rw.Ranks.from_ranks([1, 2**63]), ValueError,
     r"ranks must hold integers from 1 to 2\*\*52 = 4503599627370496; got 9223372036854775808 at position 1"),
    (lambda: rw.rank_metrics([1, 2**63], ["MR"]), ValueError, "ranks must hold integers from 1"),
    # types
    (lambda: rw.Ranks.from_ranks(None), TypeError, "ranks must hold integers, got dtype object"),
    (lambda: rw.Ranks(b"3"), TypeError, "greater must hold integers, got dtype \\|S1"),
    (lambda: rw.Ranks(np.array([3], "datetime64[ns]")), TypeError, "greater must hold integers"),
    (lambda: rw.Ranks(np.array([3 + 0j])), TypeError, "greater must hold integers"),
    (lambda: rw.Ranks([1], [True]), TypeError, "equal must hold integers, got dtype bool"),
    (lambda: rw.Ranks([[1], [1, 2]]), ValueError, "greater holds sequences of different lengths"),
    (lambda: rw.Ranks(np.ma.array([1, 2], mask=[0, 1])), ValueError, "greater is a masked array with masked entries"),
    (lambda: rw.Ranks.concatenate(5), TypeError, "Ranks.concatenate takes a non-empty sequence of Ranks, got 5"),
    (lambda: rw.Ranks.concatenate(None), TypeError, "Ranks.concatenate takes a non-empty sequence of Ranks"),
    # indexing: IndexError (the sequence protocol) only for an index out of range
    (lambda: R[3], IndexError, "Ranks index 3 is out of range for 3 queries"),
    (lambda: R[-4], IndexError, "Ranks index -4 is out of range for 3 queries"),
    (lambda: R[2**64], IndexError, "Ranks index 18446744073709551616 is out of range"),
    (lambda: R[np.array([0, 2**64 - 1], dtype=U64)], IndexError, "Ranks index 18446744073709551615 is out of range"),
    (lambda: R[[0, 7]], IndexError, "Ranks index 7 is out of range"),
    (lambda: R[1.0], TypeError, "Ranks index must be an integer, a slice, integer indices or a boolean mask, got 1.0"),
    (lambda: R[True], TypeError, "Ranks index must be an integer"),
    (lambda: R["a"], TypeError, "Ranks index must be an integer"),
    (lambda: R[[[0]]], TypeError, "Ranks index must be an integer"),
    # a mask of another length: IndexError, as NumPy's own
    (lambda: R[[True, False]], IndexError,
     r"a boolean Ranks index \(mask\) must have one value per query \(3\), got a mask of length 2"),
    (lambda: R[np.ones(4, bool)], IndexError, "got a mask of length 4"),
    (lambda: R[[[True, False, True]]], IndexError, r"got a mask of shape \(1, 3\)"),
    (lambda: R[[0, 2**63]], IndexError,
     r"Ranks index must hold integers from -3 to 2 \(3 queries\); got 9223372036854775808 at position 1"),
])
def test_ranks_counts_and_types(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("call, exc, match", [
    (lambda: rw.rank_positive(POS, [[0.1, 0.2], [0.3]]), ValueError,
     "neg_scores holds sequences of different lengths, which do not form one array; flatten every query's "
     "candidates into one 1-D array and pass indptr="),
    (lambda: rw.rank_positive(scores=[[0.1, 0.2], [0.3]], true_index=[0, 0]), ValueError,
     "scores holds sequences of different lengths.*indptr="),
    (lambda: rw.rank_positive(POS, Z, [[True], [False, True]]), ValueError, "mask holds sequences of different"),
    (lambda: rw.rank_positive(POS, np.ma.array(Z, mask=Z == 0)), ValueError,
     "neg_scores is a masked array with masked entries"),
    (lambda: rw.rank_positive(np.ma.array(POS, mask=[1, 0]), Z), ValueError, "pos_score is a masked array"),
    (lambda: rw.rank_positive(scores=Z, true_index=np.array([0, 2**64 - 1], dtype=U64)), ValueError,
     r"true_index\[1\] = 18446744073709551615 is beyond the last candidate column"),
    (lambda: rw.rank_positive(scores=Z, true_index=np.array([0, 2**63], dtype=U64)), ValueError,
     r"true_index\[1\] = 9223372036854775808"),
    (lambda: rw.rank_positive(scores=Z, true_index=np.array([0, 4], dtype=U64)), ValueError,
     r"true_index\[1\] = 4 is outside the 4 columns of query 1"),
    (lambda: rw.rank_positive(scores=Z, true_index=[True, False]), TypeError, "true_index must hold integer"),
    (lambda: rw.rank_positive(scores=np.zeros((2, 0)), true_index=[0, 0]), ValueError,
     r"true_index\[0\] = 0 is outside the 0 columns of query 0"),
    (lambda: rw.rank_positive(POS, np.zeros(3), indptr=np.array([0, 2**63 + 5, 3], dtype=U64)), ValueError,
     r"indptr values must lie in 0\.\.len\(neg_scores\) = 3; got indptr\[1\] = 9223372036854775813"),
    (lambda: rw.rank_positive(POS, np.zeros(3), indptr=[0, -1, 3]), ValueError, r"got indptr\[1\] = -1"),
    # Python ints beyond int64 (NumPy makes floats or objects of them): out of range, not of the wrong type
    (lambda: rw.rank_positive(POS, np.zeros(3), indptr=[0, 2**63, 3]), ValueError,
     r"indptr must hold integers from 0 to len\(neg_scores\) = 3; got 9223372036854775808 at position 1"),
    (lambda: rw.rank_positive(POS, np.zeros(3), indptr=[0, 2**64, 3]), ValueError, "got 18446744073709551616"),
    (lambda: rw.rank_positive(scores=np.zeros(3), true_index=[0, 2**63], indptr=[0, 2, 3]), ValueError,
     r"true_index must hold integers from 0 to the query's last column \(at most 2\*\*52 = 4503599627370496 - 1\); "
     r"got 9223372036854775808 at position 1"),
    (lambda: rw.rank_positive(scores=Z, true_index=[0, 2**63]), ValueError, "true_index must hold integers"),
    (lambda: rw.rank_positive(scores=Z, true_index=[-(2**63) - 1, 0]), ValueError, "got -9223372036854775809"),
    (lambda: rw.rank_positive(POS, Z.astype(np.complex128)), TypeError, "neg_scores must be numeric"),
    # Python ints around 2**63 (NumPy made float64 of them, so 2**63 + 1 tied with 2**63) or beyond 64 bits
    (lambda: rw.rank_positive([0, 2**63 + 1], [[1], [2**63]]), ValueError,
     "pos_score has integers beyond 2\\*\\*53, which float64 cannot hold exactly"),
    (lambda: rw.rank_positive([0.5, 0.5], [[1, 2], [0, 2**63 + 1]]), ValueError,
     "neg_scores has integers beyond 2\\*\\*53"),
    (lambda: rw.rank_positive([2**64], [[0.1]]), ValueError,
     r"pos_score holds the integer 18446744073709551616 at position 0, which no 64-bit integer type holds"),
    (lambda: rw.rank_positive(POS, Z.astype("datetime64[ns]")), TypeError, "neg_scores must be numeric"),
    (lambda: rw.rank_positive(b"1", Z), TypeError, "pos_score must be numeric"),
    (lambda: rw.rank_positive(POS, Z, nan=None), TypeError, "nan must be one of .* \\(a string\\), got None"),
    (lambda: rw.rank_positive(POS, Z, n_threads=2**63), ValueError, "n_threads must be a non-zero integer"),
    (lambda: rw.rank_positive(POS, Z, n_threads=True), TypeError, "n_threads must be an integer or None"),
])
def test_rank_positive_hostile_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("start, exc, match", [
    (1.9, TypeError, r"start must be an integer column index >= 0 \(or one per query\), got 1.9"),
    (2.0, TypeError, "start must be an integer column index"),
    (True, TypeError, "start must be an integer column index"),
    ("0", TypeError, "start must be an integer column index"),
    (None, ValueError, "needs start="),
    (-5, ValueError, r"start must be >= 0 \(the column of the chunk's first candidate\), got -5"),
    ([0, -1], ValueError, r"start\[1\] must be >= 0"),
    (np.array([0, 2**64 - 1], dtype=U64), ValueError,
     r"start\[1\] \+ the chunk's width must be at most 2\*\*52 = 4503599627370496 .*got start\[1\] = "
     r"18446744073709551615 and width 2"),
    (U64(2**63), ValueError, r"start \+ the chunk's width must be at most 2\*\*52"),
    (2**52 - 1, ValueError, r"start \+ the chunk's width must be at most 2\*\*52 .*got start = 4503599627370495"),
    # beyond int64 (a float64 or object array in NumPy): out of range, not of the wrong type
    (2**70, ValueError, r"start must be an integer >= 0, with start \+ the chunk's width at most 2\*\*52 "
                        r"= 4503599627370496; got 1180591620717411303424"),
    (2**64, ValueError, r"start must be an integer >= 0.*; got 18446744073709551616$"),
    ([0, 2**63], ValueError, r"start must hold integers >= 0.*; got 9223372036854775808 at position 1"),
    ([0, 2**64], ValueError, r"start must hold integers >= 0.*; got 18446744073709551616 at position 1"),
    ([0], ValueError, r"start must be one integer or one per query \(2\), got shape \(1,\)"),
    ([[0, 0]], ValueError, r"start must be one integer or one per query \(2\), got shape \(1, 2\)"),
])
def test_rank_builder_start(start, exc, match):
    builder = rw.RankBuilder([0.5, 0.5], true_index=[1, 0])
    with pytest.raises(exc, match=match):
        builder.update([[0.1, 0.9], [0.3, 0.2]], start=start)
    # The failed update left the builder as it was.
    assert builder.update([[0.1, 0.9], [0.3, 0.2]], start=0).ranks().greater.tolist() == [0, 0]


@pytest.mark.parametrize("call, exc, match", [
    (lambda: rw.RankBuilder([0.5], true_index=np.array([2**63], dtype=U64)), ValueError,
     r"true_index\[0\] = 9223372036854775808 is beyond the last candidate column a query can have"),
    (lambda: rw.RankBuilder([0.5], true_index=[2**52]), ValueError, r"true_index\[0\] = 4503599627370496 is beyond"),
    (lambda: rw.RankBuilder([0.5], true_index=[1.0]), TypeError, "true_index must hold integer"),
    (lambda: rw.RankBuilder([0.5, 0.5], true_index=[0, 2**63]), ValueError,
     "true_index must hold integers from 0 .*; got 9223372036854775808 at position 1"),
    (lambda: rw.RankBuilder([0.5], true_index=[2**64]), ValueError, "true_index must hold integers.*got 18446744073709551616"),
    (lambda: rw.RankBuilder([0.5, 0.5]).update([0.1, 0.2, 0.3], indptr=[0, 2**63, 3]), ValueError,
     r"indptr must hold integers from 0 to len\(neg_scores\) = 3; got 9223372036854775808 at position 1"),
    (lambda: rw.RankBuilder([0.5, 0.5]).update([[0.1], [0.1, 0.2]]), ValueError,
     "neg_scores holds sequences of different lengths.*indptr="),
    (lambda: rw.RankBuilder([0.5]).update(np.ma.array([[0.1, 0.2]], mask=[[0, 1]])), ValueError,
     "neg_scores is a masked array"),
    (lambda: rw.RankBuilder([0.5], nan=None), TypeError, "nan must be one of"),
])
def test_rank_builder_hostile_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("call, exc, match", [
    (lambda: rw.rank_metrics(R, ["Hits@99999999999999999999"]), ValueError,
     r"rank metric 'Hits@99999999999999999999': cutoff k must be an integer from 1 to 2\*\*63 - 1, "
     r"got 99999999999999999999"),
    (lambda: rw.rank_metrics(R, ["Hits@9223372036854775808"]), ValueError, "cutoff k must be an integer from 1"),
    (lambda: rw.rank_metrics(R, ["hits_at_9223372036854775808"]), ValueError, "'hits_at_9223372036854775808'"),
    (lambda: rw.rank_metrics(R, ["AHits@1e3"]), ValueError, "rank metric 'AHits@1e3': cutoff must be an integer"),
    (lambda: rw.rank_metrics(R, ["Hits@１０"]), ValueError, "cutoff must be an integer"),
    (lambda: rw.rank_metrics(R, 5), TypeError,
     r"metrics must be a rank metric name or a list of names \(strings\), got 5"),
    (lambda: rw.rank_metrics(R, None), TypeError, "metrics must be a rank metric name"),
    (lambda: rw.rank_metrics(R, b"MR"), TypeError, "metrics must be a rank metric name"),
    (lambda: rw.rank_metrics(R, [None]), TypeError, r"metric names must be strings, got NoneType None at metrics\[0\]"),
    (lambda: rw.rank_metrics(R, iter([])), ValueError, "metrics must name at least one metric"),
    (lambda: rw.rank_metrics(R, ["MR"], per_query="yes"), TypeError, "per_query must be True or False, got 'yes'"),
    (lambda: rw.rank_metrics(R, ["MR"], ties=None), TypeError, "ties must be one of .* \\(a string\\), got None"),
    (lambda: rw.rank_metrics(R, ["MR"], weights=np.ma.array([1, 2, 3], mask=[0, 1, 0])), ValueError,
     "weights is a masked array"),
    (lambda: rw.rank_metrics(R, ["MR"], weights=np.ones(3, np.complex128)), TypeError, "weights must be numeric"),
    (lambda: rw.rank_metrics(R, ["MR"], weights=[1, -np.inf, 1]), ValueError, "weights must be finite"),
    (lambda: rw.rank_metrics(R, ["MR"], weights=[[1], [2, 3]]), ValueError, "weights holds sequences"),
    (lambda: rw.rank_metrics(None, ["MR"]), TypeError, "ranks must hold integers, got dtype object"),
    (lambda: rw.rank_metrics([2**60], ["MR"]), ValueError, rf"ranks {TOO_BIG}"),
])
def test_rank_metrics_hostile_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_rank_metrics_names_from_any_iterable():
    want = rw.rank_metrics(R, ["MR", "Hits@2"])
    for metrics in [np.array(["MR", "Hits@2"]), (m for m in ["MR", "Hits@2"]), ("MR", "Hits@2")]:
        got = rw.rank_metrics(R, metrics)
        assert got == want and all(type(name) is str for name in got)
