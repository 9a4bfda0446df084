"""beyond_accuracy against the libraries themselves, where they install (each test skips without
its library): RecBole's metric classes, PyG's LinkPred* metrics, Microsoft Recommenders'
python_evaluation. Run with the peers environment, e.g.
``PYTHONPATH=src /work/peers/bin/python -m pytest tests/recsys/test_beyond_peers.py``."""
import math

import numpy as np
import pytest

import rankwise as rw


def same(a, b, tol=1e-9):
    return math.isclose(float(a), float(b), rel_tol=tol, abs_tol=1e-12)


@pytest.fixture
def lists(rng):
    n_users, n_items, k = 60, 25, 8
    item_matrix = np.array([rng.choice(n_items, size=k, replace=False) for _ in range(n_users)])
    train = (rng.random((80, n_items)) < 0.25).astype(np.int64) * rng.integers(1, 4, size=(80, n_items))
    train[0] = 1  # every item seen by someone
    return item_matrix, train, n_items


class _Data:
    """RecBole's DataStruct, as far as its metrics read it."""

    def __init__(self, **values):
        self.values = values

    def get(self, key):
        return self.values[key]


def test_recbole(lists):
    metrics = pytest.importorskip("recbole.evaluator.metrics")
    torch = pytest.importorskip("torch")
    item_matrix, train, n_items = lists
    counts = dict(enumerate(train.sum(axis=0).tolist()))  # interactions per item
    data = _Data(**{"rec.items": torch.from_numpy(item_matrix), "data.num_items": n_items,
                    "data.count_items": counts})
    config = {"topk": [3, 8], "metric_decimal_place": 15, "tail_ratio": 0.2}
    theirs = {}
    for cls in (metrics.GiniIndex, metrics.ShannonEntropy, metrics.ItemCoverage, metrics.AveragePopularity,
                metrics.TailPercentage):
        theirs.update(cls(config).calculate_metric(data))
    # TailPercentage's cut: the int(0.2 n) least interacted items (ties: lower id first).
    order = sorted(counts, key=lambda i: (counts[i], i))
    tail = order[:max(int(len(order) * 0.2), 1)]
    for k in (3, 8):
        ours = rw.beyond_accuracy(item_matrix, [f"gini@{k}", f"entropy@{k}", f"coverage@{k}", f"ARP@{k}",
                                                f"APLT@{k}"], train=train, popularity="interactions")
        distinct = len(np.unique(item_matrix[:, :k]))
        assert same(ours[f"gini@{k}"], theirs[f"giniindex@{k}"])
        assert same(ours[f"entropy@{k}"] / distinct, theirs[f"shannonentropy@{k}"])
        assert same(ours[f"coverage@{k}"], theirs[f"itemcoverage@{k}"])
        assert same(ours[f"ARP@{k}"], theirs[f"averagepopularity@{k}"])
        explicit = rw.beyond_accuracy(item_matrix, [f"APLT@{k}"], long_tail=tail)
        assert same(explicit[f"APLT@{k}"], theirs[f"tailpercentage@{k}"])


def test_pyg(lists):
    link_pred = pytest.importorskip("torch_geometric.metrics.link_pred")
    torch = pytest.importorskip("torch")
    item_matrix, train, n_items = lists
    categories = np.arange(n_items) % 4
    popularity = (train != 0).sum(axis=0)
    unused = torch.zeros((2, 1), dtype=torch.long)
    pred = torch.from_numpy(item_matrix)
    for k in (3, 8):
        theirs = {}
        for name, metric in [("personalization", link_pred.LinkPredPersonalization(k, max_src_nodes=None)),
                             ("ILD", link_pred.LinkPredDiversity(k, torch.from_numpy(categories))),
                             ("coverage", link_pred.LinkPredCoverage(k, n_items)),
                             ("ARP", link_pred.LinkPredAveragePopularity(k, torch.from_numpy(popularity)))]:
            metric.update(pred, unused)
            theirs[name] = float(metric.compute())
        ours = rw.beyond_accuracy(item_matrix, [f"personalization@{k}", f"ILD@{k}", f"coverage@{k}", f"ARP@{k}"],
                                  train=train, item_features=np.eye(4)[categories])
        for name in theirs:
            assert same(ours[f"{name}@{k}"], theirs[name], tol=1e-6), name  # PyG computes in float32


def test_microsoft_recommenders(lists):
    pd = pytest.importorskip("pandas")
    evaluation = pytest.importorskip("recommenders.evaluation.python_evaluation")
    item_matrix, train, n_items = lists
    rng = np.random.default_rng(7)
    features = rng.normal(size=(n_items, 4))
    users, items = np.nonzero(train)
    train_df = pd.DataFrame({"userID": users, "itemID": items, "rating": 1.0})
    # Recommended users are not train's: the library refuses lists that repeat a training pair.
    reco_df = pd.DataFrame({"userID": 1000 + np.repeat(np.arange(len(item_matrix)), item_matrix.shape[1]),
                            "itemID": item_matrix.ravel(), "prediction": 1.0})
    feature_df = pd.DataFrame({"itemID": np.arange(n_items), "features": list(features)})
    ours = rw.beyond_accuracy(item_matrix, ["ILD", "entropy", "coverage"], train=train, item_features=features)
    diversity = evaluation.diversity(train_df, reco_df, item_feature_df=feature_df,
                                     item_sim_measure="item_feature_vector")
    assert same(ours["ILD"], diversity)
    # distributional_coverage is the entropy in bits.
    assert same(ours["entropy"] / math.log(2), evaluation.distributional_coverage(train_df, reco_df))
    # catalog_coverage divides by the number of distinct items in train (all of them here).
    assert same(ours["coverage"], evaluation.catalog_coverage(train_df, reco_df))
