"""The recsys workload (issue 16): evaluate_topk and top_k beside what recommender code does instead.

    python benchmarks/bench.py --workload recsys [--recsys-users 1000000] [--recsys-items 50000]
        [--recsys-depth 100] [--recsys-held-out 10] [--recsys-sample-users 20000]
        [--topk-users 20000] [--topk-items 20000] [--topk-k 100] [--recsys-batch 2048]

(a) evaluate_topk: --recsys-users users x --recsys-depth recommended item ids (int32, distinct per
row, in rank order) against a CSR of held-out items (--recsys-held-out per user on average, about
30% of them recommended), --recsys-items items; P@10, R@100, AP@100, nDCG@100 (trec_eval's
definitions; each peer is first checked against rankwise under its own convention=):
  - implicit's ``ranking_metrics_at_k`` (precision, map, ndcg, auc @ K), fed the same lists by a
    model whose ``recommend`` returns them: that is the only model call the function makes
    (implicit/evaluation.pyx); its loop is serial whatever num_threads is, so it runs once;
  - torchmetrics' RetrievalPrecision/Recall/MAP/NormalizedDCG on the flattened (preds, target,
    indexes) a user builds: the K recommended items scored K..1 and each missed held-out item
    scored 0 (so R and nDCG's ideal see it); its Python loop per user is slow, so it runs on
    --recsys-sample-users users and its time is multiplied up (labelled "extrapolated");
  - RecBole's metric classes (Precision, Recall, MAP, NDCG with topk [10, 100]) on the pos_index
    matrix built as recbole/evaluator/collector.py builds it, per batch of --recsys-batch users:
    a users x items int32 matrix of positives, gathered at the top-k ids;
  - the floor: one pass over the recommended ids and the held-out ids (their maxima).
(b) top_k: a --topk-users x --topk-items float32 score matrix, 1% of each row's items excluded
through a CSR, k=--topk-k: rw.top_k; numpy argpartition + a sort of the k, and torch.topk on a
copy with the excluded items set to -inf (as RecBole masks the history), both per batch of
--recsys-batch rows; the floor y.max(axis=1). The ids' scores are checked equal to rankwise's
(ties in float32 may pick other ids of equal score) and no excluded item may be returned.

Peers that are not installed are named and left out; the workload runs from any environment.
Peak extra memory is bench.py's (resident high-water mark above the level before the call).
"""
from __future__ import annotations

import importlib.util

import numpy as np

import rankwise as rw

METRICS = ("P@10", "R@100", "AP@100", "nDCG@100")
# The metrics of each peer, as it names them -> ours (under the peer's convention).
IMPLICIT = {"precision": "P@{K}", "map": "AP@{K}", "ndcg": "nDCG@{K}"}
TORCHMETRICS = {"RetrievalPrecision": ("P", 10), "RetrievalRecall": ("R", 100), "RetrievalMAP": ("AP", 100),
                "RetrievalNormalizedDCG": ("nDCG", 100)}
RECBOLE = {"Precision": ("precision", "P", 10), "Recall": ("recall", "R", 100), "MAP": ("map", "AP", 100),
           "NDCG": ("ndcg", "nDCG", 100)}
HIT_SHARE = 0.3
EXCLUDED_SHARE = 0.01
ATOL = 1e-12
# torchmetrics averages float32 per-user values.
TORCHMETRICS_RTOL = 1e-5
# Peers whose values could not be checked (this rankwise has no such convention=).
UNCHECKED: list[str] = []


def add_arguments(parser) -> None:
    parser.add_argument("--recsys-users", type=int, default=1_000_000, help="recsys workload: users")
    parser.add_argument("--recsys-items", type=int, default=50_000, help="recsys workload: items")
    parser.add_argument("--recsys-depth", type=int, default=100, help="recsys workload: K, ids per list")
    parser.add_argument("--recsys-held-out", type=int, default=10,
                        help="recsys workload: mean held-out items per user")
    parser.add_argument("--recsys-sample-users", type=int, default=20_000,
                        help="recsys workload: users given to torchmetrics (time extrapolated)")
    parser.add_argument("--recsys-batch", type=int, default=2048,
                        help="recsys workload: users per batch of RecBole's pos_index and of the top-k peers")
    parser.add_argument("--topk-users", type=int, default=20_000, help="recsys workload: top_k rows")
    parser.add_argument("--topk-items", type=int, default=20_000, help="recsys workload: top_k columns")
    parser.add_argument("--topk-k", type=int, default=100, help="recsys workload: top_k's k")


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------

def _coprime_strides(rng, n, n_items):
    """Odd strides coprime with n_items, so that base + stride * j (mod n_items) never repeats."""
    strides = rng.integers(1, n_items, n) | 1
    bad = np.gcd(strides, n_items) != 1
    while bad.any():
        strides[bad] = rng.integers(1, n_items, int(bad.sum())) | 1
        bad = np.gcd(strides, n_items) != 1
    return strides


def make_lists(n_users, n_items, depth, held_out, seed):
    """(recommended int32 (users, depth), held-out scipy CSR): each row's ids run along a stride
    coprime with n_items (distinct); held-out items are recommended ones (HIT_SHARE of them, at
    random ranks) and items further along the same stride (never recommended)."""
    import scipy.sparse

    rng = np.random.default_rng(seed)
    base = rng.integers(0, n_items, n_users)[:, None]
    stride = _coprime_strides(rng, n_users, n_items)[:, None]
    recommended = ((base + stride * np.arange(depth)) % n_items).astype(np.int32)
    n_held = np.clip(rng.poisson(held_out, n_users), 1, None)
    hits = rng.binomial(n_held, HIT_SHARE)
    width = int(n_held.max())
    slot = np.arange(width)
    positions = np.where(slot < hits[:, None], rng.integers(0, depth, (n_users, width)), depth + slot)
    users = np.broadcast_to(np.arange(n_users)[:, None], positions.shape)
    keep = slot < n_held[:, None]
    items = (base + stride * positions) % n_items
    keys = np.unique(users[keep].astype(np.int64) * n_items + items[keep])
    # int32 indices, as scipy makes them for this size: implicit reads them as C ints.
    indptr = np.zeros(n_users + 1, dtype=np.int32)
    np.cumsum(np.bincount(keys // n_items, minlength=n_users), out=indptr[1:])
    held = scipy.sparse.csr_matrix((np.ones(keys.size), (keys % n_items).astype(np.int32), indptr),
                                   shape=(n_users, n_items))
    return recommended, held


def make_scores(n_users, n_items, seed):
    """(float32 scores, CSR of the excluded items: EXCLUDED_SHARE of each row, distinct)."""
    import scipy.sparse

    rng = np.random.default_rng(seed)
    scores = rng.random((n_users, n_items), dtype=np.float32)
    per_row = max(1, int(n_items * EXCLUDED_SHARE))
    base = rng.integers(0, n_items, n_users)[:, None]
    stride = _coprime_strides(rng, n_users, n_items)[:, None]
    columns = np.sort((base + stride * np.arange(per_row)) % n_items, axis=1)
    indptr = np.arange(n_users + 1, dtype=np.int64) * per_row
    exclude = scipy.sparse.csr_matrix((np.ones(columns.size, dtype=bool), columns.ravel(), indptr),
                                      shape=(n_users, n_items))
    return scores, exclude


# --------------------------------------------------------------------------------------
# (a) evaluate_topk and its peers
# --------------------------------------------------------------------------------------

def rankwise_means(held, recommended, metrics, convention=None):
    res = rw.evaluate_topk(held, recommended, list(metrics), convention=convention, n_items=held.shape[1])
    return res.mean()


class _FixedLists:
    """What implicit's ranking_metrics_at_k needs of a model: recommend(userids, user_items, N)."""

    def __init__(self, ids):
        self.ids = ids

    def recommend(self, userid, user_items, N=10, **_):
        ids = self.ids[np.asarray(userid), :N]
        return ids, np.zeros(ids.shape, dtype=np.float32)


def implicit_metrics(recommended, held):
    import scipy.sparse
    from implicit.evaluation import ranking_metrics_at_k

    train = scipy.sparse.csr_matrix(held.shape, dtype=np.float32)
    return ranking_metrics_at_k(_FixedLists(recommended), train, held, K=recommended.shape[1],
                                show_progress=False)


def torchmetrics_inputs(recommended, held):
    """Flattened (preds, target, indexes): recommended items scored K..1, missed held-out items 0."""
    import torch

    n_users, depth = recommended.shape
    n_items = held.shape[1]
    users = np.repeat(np.arange(n_users, dtype=np.int64), depth)
    rec_keys = users * n_items + recommended.ravel()
    held_users = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(held.indptr))
    held_keys = held_users * n_items + held.indices
    hit = np.isin(rec_keys, held_keys)
    missed = ~np.isin(held_keys, rec_keys)
    preds = np.concatenate([np.tile(np.arange(depth, 0, -1, dtype=np.float32), n_users),
                            np.zeros(int(missed.sum()), dtype=np.float32)])
    target = np.concatenate([hit, np.ones(int(missed.sum()), dtype=bool)])
    indexes = np.concatenate([users, held_users[missed]])
    return torch.from_numpy(preds), torch.from_numpy(target), torch.from_numpy(indexes)


def torchmetrics_metrics(recommended, held):
    import torchmetrics.retrieval as retrieval

    preds, target, indexes = torchmetrics_inputs(recommended, held)
    out = {}
    for cls, (ours, k) in TORCHMETRICS.items():
        metric = getattr(retrieval, cls)(top_k=k)
        metric.update(preds, target, indexes=indexes)
        out[f"{ours}@{k}"] = float(metric.compute())
    return out


def recbole_pos_index(recommended, held, batch):
    """rec.topk as recbole/evaluator/collector.py (eval_batch_collect) builds it, batch by batch:
    a batch x items positives matrix gathered at the top-k ids, and each user's positive count."""
    import torch
    from recbole.evaluator.collector import DataStruct

    data = DataStruct()
    n_users, n_items = held.shape
    for start in range(0, n_users, batch):
        stop = min(start + batch, n_users)
        part = held[start:stop]
        positive_u = torch.from_numpy(np.repeat(np.arange(stop - start), np.diff(part.indptr)))
        positive_i = torch.from_numpy(part.indices.astype(np.int64))
        topk_idx = torch.from_numpy(recommended[start:stop].astype(np.int64))
        pos_matrix = torch.zeros((stop - start, n_items), dtype=torch.int)
        pos_matrix[positive_u, positive_i] = 1
        pos_len_list = pos_matrix.sum(dim=1, keepdim=True)
        pos_idx = torch.gather(pos_matrix, dim=1, index=topk_idx)
        data.update_tensor("rec.topk", torch.cat((pos_idx, pos_len_list), dim=1))
    return data


def recbole_metrics(recommended, held, batch):
    import recbole.evaluator.metrics as metrics

    # RecBole 1.2.1 spells np.float, which numpy 1.24 removed: an alias, no value changes.
    if not hasattr(np, "float"):
        np.float = float
    data = recbole_pos_index(recommended, held, batch)
    config = {"topk": [10, recommended.shape[1]], "metric_decimal_place": 17}
    out = {}
    for cls, (key, ours, k) in RECBOLE.items():
        out[f"{ours}@{k}"] = float(getattr(metrics, cls)(config).calculate_metric(data)[f"{key}@{k}"])
    return out


def _check_means(got, want, what, rtol=0.0):
    for name, value in want.items():
        if not abs(got[name] - value) <= max(ATOL, rtol * abs(value)):
            raise AssertionError(f"{what}: {name} = {got[name]!r}, rankwise {value!r}")


def _convention_check(held, recommended, names, convention, rename, rtol=0.0):
    """A check of a peer's first value against rankwise under ``convention`` (not timed)."""
    def check(value):
        try:
            want = rankwise_means(held, recommended, names, convention)
        except (TypeError, ValueError) as error:
            UNCHECKED.append(f"{convention} ({error})")
            return
        _check_means(rename(value), want, f"{convention} vs rankwise(convention={convention!r})", rtol)
    return check


def evaluate_peers(Impl, recommended, held, sample, batch):
    """The peers of (a) that are installed, with their checks; and the names of those that are not."""
    impls, missing = [], []
    depth = recommended.shape[1]
    if installed("implicit"):
        names = {k: v.format(K=depth) for k, v in IMPLICIT.items()}
        impls.append(Impl("implicit ranking_metrics_at_k (fixed-list model), serial",
                          lambda: implicit_metrics(recommended, held), "competitor",
                          _convention_check(held, recommended, list(names.values()), "implicit",
                                            lambda v: {ours: v[theirs] for theirs, ours in names.items()})))
    else:
        missing.append("implicit")
    if installed("torchmetrics"):
        rec_s, held_s = recommended[:sample], held[:sample]
        impls.append(Impl(f"torchmetrics Retrieval* on {sample:,} users (time extrapolated)",
                          lambda: torchmetrics_metrics(rec_s, held_s), "competitor",
                          _convention_check(held_s, rec_s, METRICS, "torchmetrics", dict, TORCHMETRICS_RTOL)))
    else:
        missing.append("torchmetrics")
    if installed("recbole"):
        impls.append(Impl(f"RecBole metrics on collector's pos_index (batches of {batch:,})",
                          lambda: recbole_metrics(recommended, held, batch), "competitor",
                          _convention_check(held, recommended, METRICS, "recbole", dict)))
    else:
        missing.append("recbole")
    return impls, missing


def evaluate_impls(Impl, args, recommended, held, thread_counts):
    impls = [Impl("floor: recommended.max() + held-out indices.max()",
                  lambda: (recommended.max(), held.indices.max()), "yardstick")]
    peers, missing = evaluate_peers(Impl, recommended, held, min(args.recsys_sample_users, held.shape[0]),
                                    args.recsys_batch)
    impls += peers
    if hasattr(rw, "evaluate_topk"):
        for t in thread_counts:
            impls.append(Impl(f"rankwise evaluate_topk, {t} thread{'s' if t > 1 else ''}",
                              lambda t=t: rw.evaluate_topk(held, recommended, list(METRICS),
                                                           n_items=held.shape[1], n_threads=t).mean(),
                              "rankwise", None, f"{t}T"))
    else:
        missing.append("rankwise.evaluate_topk (not in this build)")
    return impls, missing


# --------------------------------------------------------------------------------------
# (b) top_k and its peers
# --------------------------------------------------------------------------------------

def _masked_block(scores, exclude, start, stop):
    """A copy of rows start:stop with the excluded items set to -inf."""
    block = scores[start:stop].copy()
    part = exclude[start:stop]
    rows = np.repeat(np.arange(stop - start), np.diff(part.indptr))
    block[rows, part.indices] = -np.inf
    return block


def numpy_top_k(scores, exclude, k, batch):
    n_users, n_items = scores.shape
    out = np.empty((n_users, k), dtype=np.int64)
    for start in range(0, n_users, batch):
        stop = min(start + batch, n_users)
        block = _masked_block(scores, exclude, start, stop)
        part = np.argpartition(block, n_items - k, axis=1)[:, n_items - k:]
        order = np.argsort(-np.take_along_axis(block, part, axis=1), axis=1, kind="stable")
        out[start:stop] = np.take_along_axis(part, order, axis=1)
    return out


def torch_top_k(scores, exclude, k, batch):
    import torch

    n_users = scores.shape[0]
    out = np.empty((n_users, k), dtype=np.int64)
    for start in range(0, n_users, batch):
        stop = min(start + batch, n_users)
        block = torch.from_numpy(scores[start:stop]).clone()
        part = exclude[start:stop]
        rows = torch.from_numpy(np.repeat(np.arange(stop - start), np.diff(part.indptr)))
        block[rows, torch.from_numpy(part.indices.astype(np.int64))] = -np.inf
        out[start:stop] = torch.topk(block, k, dim=1).indices.numpy()
    return out


def top_k_check(scores, exclude, expected):
    """The returned ids hold the same scores as rankwise's, row by row, and no excluded item."""
    want = np.take_along_axis(scores, expected, axis=1)
    excluded = exclude.astype(bool)

    def check(ids):
        got = np.take_along_axis(scores, np.asarray(ids), axis=1)
        if not np.array_equal(got, want):
            raise AssertionError("the top-k scores differ from rankwise's")
        rows = np.repeat(np.arange(ids.shape[0]), ids.shape[1])
        if np.asarray(excluded[rows, np.asarray(ids).ravel()]).any():
            raise AssertionError("an excluded item was returned")
    return check


def top_k_impls(Impl, args, scores, exclude, thread_counts, set_threads):
    k, batch = args.topk_k, args.recsys_batch
    impls = [Impl("floor: scores.max(axis=1)", lambda: scores.max(axis=1), "yardstick")]
    missing = []
    if not hasattr(rw, "top_k"):
        return impls, ["rankwise.top_k (not in this build): nothing to check the peers against"]
    check = top_k_check(scores, exclude, rw.top_k(scores, k, exclude=exclude))
    impls.append(Impl(f"numpy argpartition + sort of k (batches of {batch:,})",
                      lambda: numpy_top_k(scores, exclude, k, batch), "competitor", check))
    if installed("torch"):
        for t in thread_counts:
            def run(t=t):
                set_threads(t)
                return torch_top_k(scores, exclude, k, batch)
            impls.append(Impl(f"torch.topk on a -inf-masked copy, {t} thread{'s' if t > 1 else ''}",
                              run, "competitor", check))
    else:
        missing.append("torch")
    for t in thread_counts:
        impls.append(Impl(f"rankwise top_k, {t} thread{'s' if t > 1 else ''}",
                          lambda t=t: rw.top_k(scores, k, exclude=exclude, n_threads=t), "rankwise", check,
                          f"{t}T"))
    return impls, missing
