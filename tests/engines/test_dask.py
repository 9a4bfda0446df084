"""rankwise.dask on a real 2-worker LocalCluster: the numbers of one machine, bit for bit.

Every check compares with ``rw.evaluate`` (or ``rw.trec_eval``) on the columns of
``ddf.compute()`` with ``==``, never approximately: per-query values, query ids, means.
"""
import pickle

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

import rankwise as rw  # noqa: E402
import rankwise.dask as rwd  # noqa: E402
from rankwise._core.bundled import data_path  # noqa: E402

METRICS = ["MAP", "nDCG@10", "P@5", "MRR", "R@20", "ERR@10", "RBP(p=0.8,graded=True)"]
TIES = ["expected", "optimistic", "pessimistic", "stable", "trec"]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as c:
        yield c


def make_frame(seed=0, n_queries=40, string_ids=False, skewed=True, float32=False):
    """Rows of many queries in random order: graded labels, tied scores, doc ids; one query
    holds half the rows when ``skewed``."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, n_queries)
    if skewed:
        sizes[3] = sizes.sum()
    qid = np.repeat(np.arange(n_queries) * 7 + 100, sizes)
    n = qid.size
    frame = pd.DataFrame({
        "qid": qid.astype(str) if string_ids else qid,
        "label": rng.choice([0, 0, 0, 1, 2, 3], n),
        "score": np.round(rng.normal(size=n), 1).astype(np.float32 if float32 else np.float64),
        "doc": np.array([f"d{i:05d}" for i in rng.permutation(n)]),
    })
    return frame.iloc[rng.permutation(n)].reset_index(drop=True)


def reference(frame, metrics=METRICS, qid="qid", **options):
    ids = frame.index.to_numpy() if qid == frame.index.name else frame[qid].to_numpy()
    return rw.evaluate(frame["label"].to_numpy(), frame["score"].to_numpy(), metrics, qid=ids,
                       doc_ids=frame["doc"].to_numpy(), **options)


def assert_same(got, expected):
    """Two Results with the same names, query ids and values, bit for bit."""
    assert got.names == expected.names
    assert got.ties == expected.ties
    np.testing.assert_array_equal(np.asarray(got.query_ids), np.asarray(expected.query_ids), strict=True)
    for name in expected.names:
        assert np.array_equal(got[name], expected[name], equal_nan=True), name
    assert_means(got.mean(), expected.mean())


def assert_means(got, expected):
    assert list(got) == list(expected)
    for name, value in expected.items():
        assert got[name] == value or (np.isnan(got[name]) and np.isnan(value)), name


def evaluate(ddf, metrics=METRICS, qid="qid", **options):
    return rwd.evaluate(ddf, metrics, qid=qid, y_true="label", y_score="score", doc_ids="doc", **options)


def check(ddf, frame, metrics=METRICS, qid="qid", **options):
    """evaluate on ``ddf``: compute(), mean() and per_query all equal one machine's."""
    res = evaluate(ddf, metrics, qid, **options)
    expected = reference(frame, metrics, qid, **options)
    assert_same(res.compute(), expected)
    assert_means(res.mean(), expected.mean())
    per_query = res.per_query.compute()
    if qid == frame.index.name:
        per_query = per_query.reset_index()
    per_query = per_query.sort_values(qid, kind="stable")
    np.testing.assert_array_equal(per_query[qid].to_numpy(), np.asarray(expected.query_ids))
    for name in expected.names:
        assert np.array_equal(per_query[name].to_numpy(), expected[name], equal_nan=True), name
    return res
