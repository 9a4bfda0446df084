"""beyond_accuracy against the brute-force references of rankwise.testing.recsys (hypothesis),
worked examples by hand, and transcriptions of RecBole's, Elliot's and recmetrics' definitions."""
import doctest
import math
import tracemalloc
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import rankwise as rw
from rankwise.testing import recsys as ref

ALL = ["coverage", "gini", "entropy", "novelty", "EPC", "EPC(discount=log)", "EPC(discount=none)", "ARP",
       "APLT", "personalization", "ILD"]


DOC = Path(__file__).resolve().parents[2] / "docs" / "beyond-accuracy.md"


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def padded(lists, width=None):
    width = max((len(row) for row in lists), default=0) if width is None else width
    return np.array([list(row) + [-1] * (width - len(row)) for row in lists], dtype=np.int64).reshape(len(lists), width)


@st.composite
def cases(draw):
    n_items = draw(st.integers(1, 6))
    lists = draw(st.lists(st.lists(st.integers(0, n_items - 1), unique=True, max_size=n_items), max_size=5))
    train = draw(st.lists(st.lists(st.integers(0, 2), min_size=n_items, max_size=n_items), min_size=1,
                          max_size=4))
    d = draw(st.integers(1, 3))
    # A non-zero first feature: every item has a direction (zero rows have their own test).
    features = [[draw(st.sampled_from([-2, -1, 1, 3]))] + draw(st.lists(st.integers(-2, 3), min_size=d - 1,
                                                                         max_size=d - 1))
                for _ in range(n_items)]
    k = draw(st.sampled_from([None, 1, 2, 4]))
    return n_items, lists, train, features, k, draw(st.booleans()), draw(st.booleans())


def expected(name, lists, train, features, n_items, popularity="users"):
    cut = {"coverage": lambda: ref.catalog_coverage(lists, n_items),
           "gini": lambda: ref.gini_index(lists, n_items),
           "entropy": lambda: ref.exposure_entropy(lists),
           "novelty": lambda: ref.novelty(lists, train),
           "EPC": lambda: ref.epc(lists, train),
           "EPC(discount=log)": lambda: ref.epc(lists, train, "log"),
           "EPC(discount=none)": lambda: ref.epc(lists, train, "none"),
           "ARP": lambda: ref.arp(lists, train, popularity),
           "APLT": lambda: ref.aplt(lists, ref.long_tail_items(train, 0.2, popularity)),
           "personalization": lambda: ref.personalization(lists),
           "ILD": lambda: ref.intra_list_diversity(lists, features)}
    return cut[name]()


@given(cases(), st.sampled_from(["users", "interactions"]))
def test_against_reference(case, popularity):
    n_items, lists, train, features, k, as_array, sparse = case
    cut = [row[:k] for row in lists] if k else lists
    recommended = padded(lists) if as_array else [np.array(row, dtype=np.int64) for row in lists]
    train_arg = sp.csr_matrix(np.array(train)) if sparse else np.array(train)
    features_arg = sp.csr_matrix(np.array(features, dtype=float)) if sparse else features
    seen = ref.item_popularity(train)
    for name in ALL:
        asked = f"{name}@{k}" if k else name
        if name == "novelty" and any(seen[i] == 0 for row in cut for i in row):
            with pytest.raises(ValueError, match="no interaction in train"):
                rw.beyond_accuracy(recommended, asked, train=train_arg)
            continue
        if name == "APLT" and not any(map(any, train)):
            with pytest.raises(ValueError, match="train holds no interaction"):
                rw.beyond_accuracy(recommended, asked, train=train_arg)
            continue
        got = rw.beyond_accuracy(recommended, [asked], train=train_arg, item_features=features_arg,
                                 popularity=popularity)
        want = expected(name, cut, train, features, n_items, popularity)
        assert list(got) == [asked]
        assert same(got[asked], want), (asked, got[asked], want)
        if name in ("coverage", "gini"):  # ratios of integers, each rounded once
            assert got[asked] == want or math.isnan(want)


def test_worked_example():
    # Lists {0, 1}, {0, 2}, {0}; 4 items; train: item 0 seen by 3 users, items 1, 2 by one, item 3 by none.
    recommended = [[0, 1], [0, 2], [0]]
    train = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [1, 0, 1, 0]])
    got = rw.beyond_accuracy(recommended, ["coverage", "gini", "entropy", "novelty", "EPC", "ARP", "APLT",
                                           "personalization", "gini@1", "coverage@1"], train=train)
    assert got["coverage"] == 3 / 4
    # Exposures sorted 0, 1, 1, 3: (-3*0 - 1*1 + 1*1 + 3*3) / (4 * 5).
    assert got["gini"] == 9 / 20
    assert same(got["entropy"], -(3 / 5 * math.log(3 / 5) + 2 * (1 / 5) * math.log(1 / 5)))
    # Self-information: item 0 -log2(3/3) = 0, items 1 and 2 log2(3); per user log2(3)/2, log2(3)/2, 0.
    assert same(got["novelty"], math.log2(3) / 3)
    # Item 0's complement is 0, items 1 and 2's 2/3, at rank 2 (discount 0.85).
    assert same(got["EPC"], (2 * (0.85 * 2 / 3) / 1.85) / 3)
    assert same(got["ARP"], ((3 + 1) / 2 + (3 + 1) / 2 + 3) / 3)
    # Short head: item 0 (3 of 5), then item 1 (4 of 5 >= 0.8); the tail is items 2 and 3.
    assert same(got["APLT"], (0 + 1 / 2 + 0) / 3)
    assert same(got["personalization"], 1 - (1 / 2 + 2 / math.sqrt(2)) / 3)
    assert got["gini@1"] == (3 * 3) / (4 * 3) and got["coverage@1"] == 1 / 4


def test_worked_intra_list_diversity():
    features = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0], [-1.0, 0.0]])
    # [0, 1]: orthogonal, distance 1; [0, 2, 3]: 1 - 1/sqrt2, 2, 1 + 1/sqrt2, mean 4/3; [2] has no pair.
    got = rw.beyond_accuracy([[0, 1], [0, 2, 3], [2]], ["ILD", "ILD@2"], item_features=features)
    assert same(got["ILD"], (1 + 4 / 3) / 2)
    assert same(got["ILD@2"], (1 + 1 - 1 / math.sqrt(2)) / 2)


def test_empty_lists_and_undefined_values():
    got = rw.beyond_accuracy(np.full((3, 2), -1), ["coverage", "gini", "entropy", "ARP", "personalization",
                                                   "ILD"], train=np.eye(3), item_features=np.eye(3))
    assert got["coverage"] == 0.0
    assert all(math.isnan(got[name]) for name in ["gini", "entropy", "ARP", "personalization", "ILD"])
    # Users with empty lists are left out of means and pairs.
    got = rw.beyond_accuracy([[0], np.array([], dtype=int), [1]], ["ARP", "personalization"], train=np.eye(2))
    assert got == {"ARP": 1.0, "personalization": 1.0}


# ---- Transcriptions of other libraries' definitions (not their code), on full (users, K) matrices.

def recbole_gini(item_matrix, num_items):
    """RecBole recbole/evaluator/metrics.py, GiniIndex.get_gini: the sorted counts of the
    recommended items sit at the top ranks num_items - m + 1 .. num_items."""
    counts = np.array(sorted(Counter(item_matrix.ravel().tolist()).values()))
    ranks = np.arange(num_items - counts.size + 1, num_items + 1)
    return float(np.sum((2 * ranks - num_items - 1) * counts) / item_matrix.size / num_items)


def recbole_entropy(item_matrix):
    """RecBole recbole/evaluator/metrics.py, ShannonEntropy.get_entropy: natural log, divided by
    the number of distinct recommended items."""
    counts = Counter(item_matrix.ravel().tolist()).values()
    p = np.array(list(counts)) / item_matrix.size
    return float(-(p * np.log(p)).sum() / len(counts))


def elliot_gini(lists, num_items):
    """Elliot elliot/evaluation/metrics/diversity/gini_index/gini_index.py, GiniIndex.eval."""
    counts = sorted(Counter(i for row in lists for i in row).values())
    total = sum(len(row) for row in lists)
    offset = num_items - len(counts)
    value = sum((2 * (j + offset + 1) - num_items - 1) * c / total for j, c in enumerate(counts))
    return 1 - value / (num_items - 1)


def elliot_long_tail(train, pop_ratio=0.8):
    """Elliot's Popularity.get_long_tail: distinct users per item, most popular first (ties in
    item order), added to the short head until pop_ratio of the interactions are held."""
    pop = (np.asarray(train) != 0).sum(axis=0)
    order = sorted(range(pop.size), key=lambda i: -pop[i])
    limit, head = (np.asarray(train) != 0).sum() * pop_ratio, set()
    for i in order:
        head.add(i)
        limit -= pop[i]
        if limit <= 0:
            break
    return [i for i in order if i not in head]


def elliot_epc_log(lists, train):
    """Elliot elliot/evaluation/metrics/novelty/EPC/epc.py with every item relevant: novelty
    1 - users/num_users, log discount 1/log2(r + 2) for r from 0, divided by the discounts' sum."""
    users = (np.asarray(train) != 0).sum(axis=0)
    values = []
    for row in lists:
        disc = [1 / math.log2(r + 2) for r in range(len(row))]
        values.append(sum(d * (1 - users[i] / len(train)) for d, i in zip(disc, row, strict=True)) / sum(disc))
    return float(np.mean(values))


def recmetrics_personalization(item_matrix):
    """recmetrics/metrics.py, personalization: binary user x item matrix, cosine similarity of
    every pair of rows, (sum - diagonal) / (dim (dim - 1))."""
    binary = np.zeros((item_matrix.shape[0], item_matrix.max() + 1))
    binary[np.arange(item_matrix.shape[0])[:, None], item_matrix] = 1
    unit = binary / np.linalg.norm(binary, axis=1, keepdims=True)
    similarity = unit @ unit.T
    dim = similarity.shape[0]
    return 1 - (similarity.sum() - dim) / (dim * (dim - 1))


def recmetrics_ils(item_matrix, features):
    """recmetrics/metrics.py, intra_list_similarity: per list, the mean cosine of the upper
    triangle of its items' similarity matrix; averaged over lists."""
    values = []
    for row in item_matrix:
        unit = features[row] / np.linalg.norm(features[row], axis=1, keepdims=True)
        similarity = unit @ unit.T
        values.append(similarity[np.triu_indices(len(row), k=1)].mean())
    return float(np.mean(values))


def recmetrics_novelty(item_matrix, pop, u, n):
    """recmetrics/metrics.py, novelty: per list, the sum of -log2(pop / u) over n; mean over lists."""
    return float(np.mean([sum(-np.log2(pop[i] / u) for i in row) / n for row in item_matrix]))


@pytest.fixture
def peers_case(rng):
    n_users, n_items, k = 40, 30, 6
    item_matrix = np.array([rng.choice(n_items, size=k, replace=False) for _ in range(n_users)])
    train = (rng.random((50, n_items)) < 0.3).astype(np.int64)
    train[0] = 1  # every item seen: novelty is finite
    features = rng.normal(size=(n_items, 5))
    return item_matrix, train, features, n_items


def test_as_recbole(peers_case):
    item_matrix, _, _, n_items = peers_case
    got = rw.beyond_accuracy(item_matrix, ["gini", "entropy", "gini@3", "entropy@3"], n_items=n_items)
    assert same(got["gini"], recbole_gini(item_matrix, n_items))
    assert same(got["gini@3"], recbole_gini(item_matrix[:, :3], n_items))
    distinct = len(np.unique(item_matrix))
    assert same(got["entropy"] / distinct, recbole_entropy(item_matrix))
    assert same(got["entropy@3"] / len(np.unique(item_matrix[:, :3])), recbole_entropy(item_matrix[:, :3]))


def test_as_elliot(peers_case):
    item_matrix, train, _, n_items = peers_case
    got = rw.beyond_accuracy(item_matrix, ["gini", "EPC(discount=log)", "APLT"], train=train)
    assert same(1 - got["gini"] * n_items / (n_items - 1), elliot_gini(item_matrix.tolist(), n_items))
    assert same(got["EPC(discount=log)"], elliot_epc_log(item_matrix.tolist(), train))
    tail = set(elliot_long_tail(train))
    assert same(got["APLT"], float(np.mean([len(set(row) & tail) / len(row) for row in item_matrix.tolist()])))


def test_as_recmetrics(peers_case):
    item_matrix, train, features, _ = peers_case
    got = rw.beyond_accuracy(item_matrix, ["personalization", "ILD", "novelty"], train=train,
                             item_features=features)
    assert same(got["personalization"], recmetrics_personalization(item_matrix))
    assert same(got["ILD"], 1 - recmetrics_ils(item_matrix, features))
    pop = (train != 0).sum(axis=0)
    assert same(got["novelty"], recmetrics_novelty(item_matrix, pop, len(train), item_matrix.shape[1]))


# ---- Options

def test_popularity_interactions_and_explicit_long_tail():
    train = sp.coo_matrix(np.array([[3, 1, 0], [2, 0, 0]]))
    got = rw.beyond_accuracy([[0, 1], [2]], ["ARP"], train=train, popularity="interactions")
    assert got["ARP"] == ((5 + 1) / 2 + 0) / 2
    mask = np.array([False, True, True])
    assert rw.beyond_accuracy([[0, 1], [2]], ["APLT"], long_tail=mask) == {"APLT": (0.5 + 1) / 2}
    assert rw.beyond_accuracy([[0, 1], [2]], ["APLT"], long_tail=[2]) == {"APLT": (0 + 1) / 2}
    assert rw.beyond_accuracy([[0, 1], [2]], ["APLT"], long_tail=[]) == {"APLT": 0.0}


def test_names_are_case_insensitive_aliases_in_the_order_asked():
    got = rw.beyond_accuracy([[0, 1]], ["Shannon_Entropy", "GiniIndex@1", "item_coverage", "ILD"], n_items=2,
                             item_features=np.eye(2))
    assert list(got) == ["Shannon_Entropy", "GiniIndex@1", "item_coverage", "ILD"]
    assert got["item_coverage"] == 1.0 and got["ILD"] == 1.0


def test_sparse_and_dense_features_agree(rng):
    features = rng.normal(size=(20, 4)) * (rng.random((20, 4)) < 0.6)
    features[:, 0] += 1.0
    lists = [rng.choice(20, size=7, replace=False) for _ in range(30)]
    dense = rw.beyond_accuracy(lists, "ILD", item_features=features)
    for fmt in (sp.csr_matrix, sp.csc_matrix, sp.coo_array):
        assert same(rw.beyond_accuracy(lists, "ILD", item_features=fmt(features))["ILD"], dense["ILD"])


def test_many_users_without_pairs_or_dense_matrices(rng):
    n_users, n_items, k = 20_000, 50_000, 20
    recommended = rng.integers(0, n_items, size=(n_users, k))
    recommended = np.sort(recommended, axis=1)
    recommended[:, 1:][recommended[:, 1:] == recommended[:, :-1]] = -1
    recommended = -np.sort(-recommended, axis=1)  # padding to the end, order irrelevant here
    features = rng.normal(size=(n_items, 8))
    tracemalloc.start()
    got = rw.beyond_accuracy(recommended, ["personalization", "ILD", "gini"], item_features=features)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # users x items would be 10**9 values; pairs of users 2 * 10**8.
    assert peak < 60 * 2**20
    assert 0.99 < got["personalization"] <= 1.0 and 0.9 < got["ILD"] < 1.1


def test_inputs_unchanged_when_read_only():
    recommended = padded([[0, 1, 2], [3, 1]])
    train = np.array([[1, 0, 1, 1], [0, 1, 1, 0]])
    features = np.array([[1.0, 2.0], [0.5, 0.0], [1.0, 1.0], [3.0, -1.0]])
    mask = np.array([False, True, False, True])
    sparse_train = sp.csr_matrix(train)
    arrays = [recommended, train, features, mask, sparse_train.data, sparse_train.indices, sparse_train.indptr]
    copies = [a.copy() for a in arrays]
    for a in arrays:
        a.flags.writeable = False
    for t in (train, sparse_train):
        rw.beyond_accuracy(recommended, ALL, train=t, item_features=features)
        rw.beyond_accuracy(recommended, ["APLT"], long_tail=mask)
        rw.beyond_accuracy(recommended, ["ILD"], item_features=sp.csr_matrix(features))
    for a, c in zip(arrays, copies, strict=True):
        np.testing.assert_array_equal(a, c)


# ---- Bad input, each naming its argument

@pytest.mark.parametrize(("recommended", "error", "match"), [
    (np.zeros((2, 2, 2), dtype=int), ValueError, "recommended must be a 2-D .users, K. array"),
    (np.array([[0.0, 1.0]]), TypeError, "recommended must hold integer item ids"),
    (np.array([[0, -2]]), ValueError, "recommended: user 0 has item id -2 at position 1 .from 0., out of range"),
    (np.array([[0, 4]]), ValueError, "user 0 has item id 4 at position 1 .from 0., out of range: ids are 0 to 3"),
    (np.array([[0, 1], [-1, 2]]), ValueError, "user 1 has item 2 at position 1 after the -1 padding"),
    (np.array([[0, 1], [2, 2]]), ValueError, "user 1 lists item 2 twice, at positions 0 and 1"),
    ([[0, 1], [[2]]], ValueError, r"recommended\[1\] must be a 1-D array"),
    ([[0, 1], ["a"]], TypeError, r"recommended\[1\] must hold integer"),
    (np.array([[0, 2**64 - 1]], dtype=np.uint64), ValueError, "beyond int64"),
    (np.array([[True, False]]), TypeError, "recommended must hold integer item ids"),
])
def test_bad_recommended(recommended, error, match):
    with pytest.raises(error, match=match):
        rw.beyond_accuracy(recommended, "coverage", n_items=4)


def test_data_frame_recommended():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"user": ["b", "b", "a", "c"], "item": [1, 3, 3, 0], "rank": [2, 1, 1, 1]})
    names = ["coverage", "gini", "EPC@1", "personalization", "APLT"]
    as_lists = rw.beyond_accuracy([[3], [3, 1], [0]], names, train=np.eye(4)[[0, 1, 1, 2, 3, 3]])
    assert rw.beyond_accuracy(frame, names, train=np.eye(4)[[0, 1, 1, 2, 3, 3]]) == as_lists
    scored = frame.drop(columns="rank").assign(score=[0.5, 0.9, 1.0, 2.0])
    assert rw.beyond_accuracy(scored, names, train=np.eye(4)[[0, 1, 1, 2, 3, 3]]) == as_lists
    with pytest.raises(ValueError, match="novelty: item 2 .user 'b', position 1. has no interaction"):
        rw.beyond_accuracy(frame.assign(item=[2, 3, 3, 0]), "novelty", train=np.eye(4)[[0, 1, 3]])


@pytest.mark.parametrize(("metrics", "error", "match"), [
    ("covrage", ValueError, "unknown beyond-accuracy metric 'covrage'; did you mean 'coverage'"),
    (["gini", "personalisaton"], ValueError, "did you mean 'personalization'"),
    ([], ValueError, "metrics must name at least one"),
    ([1], TypeError, "metric names must be strings"),
    ("gini@0", ValueError, "cutoff k must be >= 1"),
    ("gini@x", ValueError, "cutoff must be an integer"),
    ("EPC(discount=cube)", ValueError, "discount=exp|log|none"),
    ("gini(p=1)", ValueError, "gini takes no parameters"),
])
def test_bad_metrics(metrics, error, match):
    with pytest.raises(error, match=match):
        rw.beyond_accuracy([[0]], metrics, n_items=2)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"train": np.array([[1, -1]])}, ValueError, "train must hold finite labels >= 0"),
    ({"train": np.array([1, 0])}, ValueError, "train must be 2-D"),
    ({"train": np.array([["a", "b"]])}, TypeError, "train must hold numbers"),
    ({"train": np.ones((2, 3)), "n_items": 2}, ValueError, r"n_items \(2\) and train's columns \(3\) disagree"),
    ({"item_features": np.ones(2)}, ValueError, "item_features must be 2-D"),
    ({"item_features": np.array([[np.nan], [1.0]])}, ValueError, "item_features must hold finite"),
    ({"item_features": sp.csr_matrix(np.array([[np.inf], [1.0]]))}, ValueError, "item_features must hold finite"),
    ({"item_features": np.array([["a"], ["b"]])}, TypeError, "item_features must hold numbers"),
    ({"item_features": np.ones((3, 1)), "n_items": 2}, ValueError, "item_features' rows .3. disagree"),
    ({"n_items": 0}, ValueError, "n_items must be an integer >= 1"),
    ({"n_items": 2.0}, TypeError, "n_items must be an integer"),
    ({"n_items": True}, TypeError, "n_items must be an integer"),
    ({"popularity": "clicks"}, ValueError, "popularity must be one of"),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        rw.beyond_accuracy([[0, 1]], ["coverage"], **{"n_items": 2, **kwargs})


@pytest.mark.parametrize(("long_tail", "error", "match"), [
    (0.0, ValueError, r"long_tail, a share of interactions, must be in \(0, 1\)"),
    (1.5, ValueError, r"must be in \(0, 1\)"),
    (np.array([True, False, True]), ValueError, "long_tail, a boolean mask, must have one value per item .2."),
    ([0, 2], ValueError, "long_tail's item ids must be from 0"),
    ([[0]], TypeError, "long_tail must be a share"),
    (["a"], TypeError, "long_tail must be a share"),
])
def test_bad_long_tail(long_tail, error, match):
    with pytest.raises(error, match=match):
        rw.beyond_accuracy([[0, 1]], ["APLT"], train=np.ones((2, 2)), long_tail=long_tail)


@pytest.mark.parametrize(("metric", "kwargs", "match"), [
    ("coverage", {}, "needs the number of items: pass n_items="),
    ("gini@5", {}, "needs the number of items"),
    ("novelty", {"n_items": 2}, "needs item popularity: pass train="),
    ("EPC", {}, "needs item popularity"),
    ("ARP", {}, "needs item popularity"),
    ("APLT", {}, "needs item popularity"),
    ("ILD", {}, "needs item_features="),
])
def test_missing_inputs(metric, kwargs, match):
    with pytest.raises(ValueError, match=match):
        rw.beyond_accuracy([[0, 1]], ["entropy", metric], **kwargs)


def test_undefined_values_raise():
    with pytest.raises(ValueError, match=r"novelty: item 1 \(user 0, position 1\) has no interaction in train"):
        rw.beyond_accuracy([[0, 1]], "novelty", train=np.array([[1, 0]]))
    with pytest.raises(ValueError, match="item_features' row 1 is all zeros.*to user 0, position 1"):
        rw.beyond_accuracy([[0, 1]], "ILD", item_features=np.array([[1.0], [0.0]]))
    # A zero row in a list of one item has no pair: no error.
    assert math.isnan(rw.beyond_accuracy([[1]], "ILD", item_features=np.array([[1.0], [0.0]]))["ILD"])
    with pytest.raises(ValueError, match="train holds no interaction"):
        rw.beyond_accuracy([[0, 1]], "APLT", train=np.zeros((2, 2)))


@pytest.mark.skipif(not DOC.exists(), reason="docs/ is only in a source checkout")
def test_doc_examples():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
