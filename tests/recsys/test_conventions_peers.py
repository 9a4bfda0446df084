"""Each ``convention=`` preset of evaluate_topk against the library it names, on the same cases.

Every case is random and small: users x items grades (1-3) with one user without relevant item
and one with more relevant items than the longest list, a tie-free positive score matrix, train
items excluded, and the top-K lists of the remaining items. The real library gets the data in
its own layout (scores, a pos_index matrix, an RDD, DataFrames, COO labels), rankwise the lists;
means and, where the library exposes them, per-user values agree to 1e-12.

torchmetrics computes AP and nDCG in float32: those two are checked to 1e-12 against the float64
transcriptions in peer_transcriptions.py, which are checked against the real library to float32
precision; its P, R, RR and Hits are single float32 roundings, equal to rankwise's value rounded.
Spark's graded nDCG is not copied: its ideal DCG takes the truth in the order given (see
test_spark_graded_ndcg_ideal_bug).
"""
import math
import os
import shutil
from dataclasses import dataclass

import numpy as np
import pytest
from peer_transcriptions import spark_ndcg_at, torchmetrics_average_precision, torchmetrics_ndcg

import rankwise as rw

sp = pytest.importorskip("scipy.sparse")
pytest.importorskip("rankwise.lists.conventions", reason="the convention presets have not landed")
if not hasattr(rw, "evaluate_topk"):
    pytest.skip("evaluate_topk has not landed", allow_module_level=True)

TOL = 1e-12
KS = (1, 3, 5, 10)
SEEDS = range(5)
# A Spark job per metric and cutoff: fewer cases.
SPARK_SEEDS = range(3)
# pyspark's RankingMetrics builds its frame through the deprecated SQLContext; pyspark 4.3 warns
# about pandas 3 on conversions. Neither is the test's doing.
SPARK_WARNINGS = [pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0"),
                  pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")]


@dataclass
class Case:
    grades: np.ndarray          # users x items, 0 = not relevant
    train: np.ndarray           # users x items, True = excluded from the candidates
    scores: np.ndarray          # users x items, distinct and > 0
    recommended: np.ndarray     # (users, K) item ids, the top K of the non-train items

    @property
    def relevant(self):
        return sp.csr_matrix(self.grades)

    @property
    def judged_users(self):
        return np.flatnonzero((self.grades > 0).any(axis=1))


def make_case(seed, n_users=16, n_items=40, depth=10):
    rng = np.random.default_rng(seed)
    n = n_users * n_items
    scores = (rng.permutation(n).reshape(n_users, n_items) + 1.0) / (n + 1)
    grades = np.zeros((n_users, n_items))
    train = np.zeros((n_users, n_items), dtype=bool)
    for u in range(n_users):
        n_rel = (0, depth + 4)[u] if u < 2 else int(rng.integers(0, 8))
        items = rng.permutation(n_items)
        grades[u, items[:n_rel]] = rng.integers(1, 4, size=n_rel)
        train[u, items[n_rel:n_rel + int(rng.integers(0, 5))]] = True
    masked = np.where(train, -np.inf, scores)
    recommended = np.argsort(-masked, axis=1, kind="stable")[:, :depth]
    return Case(grades, train, scores, recommended)


def assert_close(ours, theirs, what):
    assert abs(ours - theirs) <= TOL, f"{what}: rankwise {ours!r}, library {theirs!r}"


def assert_means(res, theirs, convention):
    means = res.mean()
    for name, value in theirs.items():
        assert_close(means[name], float(value), f"{name} (convention={convention!r})")


# RecBole 1.2.1: metric classes of recbole/evaluator/metrics.py on the pos_index matrix that
# recbole/evaluator/collector.py (eval_batch_collect, lines 159-169) builds from the score matrix.
RECBOLE = [("Hit", "hit", "Hits"), ("MRR", "mrr", "RR"), ("MAP", "map", "AP"), ("Recall", "recall", "R"),
           ("NDCG", "ndcg", "nDCG"), ("Precision", "precision", "P")]


@pytest.mark.parametrize("seed", SEEDS)
def test_recbole(seed, monkeypatch):
    torch = pytest.importorskip("torch")
    metrics = pytest.importorskip("recbole.evaluator.metrics")
    collector = pytest.importorskip("recbole.evaluator.collector")
    # RecBole 1.2.1 still spells np.float (removed in numpy 1.24): an alias, no value changes.
    monkeypatch.setattr(np, "float", float, raising=False)
    case = make_case(seed)
    users = case.judged_users           # FullSortEvalDataLoader evaluates users with test items only
    scores = torch.from_numpy(case.scores[users])
    scores[torch.from_numpy(case.train[users])] = -np.inf      # the trainer's history mask
    positive_u, positive_i = (torch.from_numpy(a) for a in np.nonzero(case.grades[users]))
    _, topk_idx = torch.topk(scores, max(KS), dim=-1)
    pos_matrix = torch.zeros_like(scores, dtype=torch.int)
    pos_matrix[positive_u, positive_i] = 1
    pos_len_list = pos_matrix.sum(dim=1, keepdim=True)
    pos_idx = torch.gather(pos_matrix, dim=1, index=topk_idx)
    data = collector.DataStruct()
    data.update_tensor("rec.topk", torch.cat((pos_idx, pos_len_list), dim=1))
    np.testing.assert_array_equal(topk_idx.numpy(), case.recommended[users])

    config = {"topk": list(KS), "metric_decimal_place": 17}
    theirs, per_user = {}, {}
    for cls_name, key, ours in RECBOLE:
        metric = getattr(metrics, cls_name)(config)
        out = metric.calculate_metric(data)
        pos_index, pos_len = metric.used_info(data)
        values = (metric.metric_info(pos_index, pos_len) if cls_name in ("MAP", "Recall", "NDCG")
                  else metric.metric_info(pos_index))
        for k in KS:
            theirs[f"{ours}@{k}"] = out[f"{key}@{k}"]
            per_user[f"{ours}@{k}"] = values[:, k - 1]
    res = rw.evaluate_topk(case.relevant, case.recommended, list(theirs), convention="recbole")
    assert_means(res, theirs, "recbole")
    for name, values in per_user.items():
        np.testing.assert_allclose(res[name][users], values, rtol=0, atol=TOL, err_msg=name)
        assert np.isnan(res[name][0]), "a user without test item is not evaluated by RecBole"


class _FixedLists:
    """A model for implicit's ranking_metrics_at_k that returns precomputed lists: the function
    only calls ``model.recommend(userids, user_items, N=K)`` (implicit/evaluation.pyx line 434)."""

    def __init__(self, ids):
        self.ids = ids

    def recommend(self, userid, user_items, N=10, **_):
        ids = np.ascontiguousarray(self.ids[np.asarray(userid), :N], dtype=np.int32)
        return ids, np.zeros(ids.shape, dtype=np.float32)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("depth", KS)
def test_implicit(seed, depth):
    evaluation = pytest.importorskip("implicit.evaluation")
    case = make_case(seed)
    test, train = sp.csr_matrix(case.grades), sp.csr_matrix(case.train.astype(np.float64))
    theirs = evaluation.ranking_metrics_at_k(_FixedLists(case.recommended), train, test, K=depth,
                                             show_progress=False)
    names = {f"P@{depth}": "precision", f"AP@{depth}": "map", f"nDCG@{depth}": "ndcg"}
    res = rw.evaluate_topk(case.relevant, case.recommended[:, :depth], list(names), convention="implicit")
    assert_means(res, {ours: theirs[key] for ours, key in names.items()}, "implicit")


def test_implicit_precision_is_micro():
    """implicit's "precision" is sum(hits) / sum(min(K, R)), not a mean of per-user ratios."""
    evaluation = pytest.importorskip("implicit.evaluation")
    grades = np.zeros((2, 6))
    grades[0, [0]] = 1              # R=1, hit at 1: hits/min(K, R) = 1
    grades[1, [1, 2, 3, 4]] = 1     # R=4, no hit in [5, 0]
    lists = np.array([[0, 5], [5, 0]])
    theirs = evaluation.ranking_metrics_at_k(_FixedLists(lists), sp.csr_matrix((2, 6)), sp.csr_matrix(grades),
                                             K=2, show_progress=False)
    assert theirs["precision"] == 1 / 3
    res = rw.evaluate_topk(grades, lists, ["P@2"], convention="implicit")
    assert res.mean()["P@2"] == 1 / 3


TORCHMETRICS = [("RetrievalPrecision", "retrieval_precision", "P"), ("RetrievalRecall", "retrieval_recall", "R"),
                ("RetrievalMRR", "retrieval_reciprocal_rank", "RR"), ("RetrievalHitRate", "retrieval_hit_rate", "Hits"),
                ("RetrievalMAP", "retrieval_average_precision", "AP"),
                ("RetrievalNormalizedDCG", "retrieval_normalized_dcg", "nDCG")]


def _torchmetrics_inputs(torch, case):
    """Every non-train item of every user is a candidate, scored by case.scores (all > 0)."""
    rows, cols = np.nonzero(~case.train)
    grades = case.grades[rows, cols].astype(np.int64)
    return (torch.from_numpy(case.scores[rows, cols]), torch.from_numpy(grades), torch.from_numpy(grades > 0),
            torch.from_numpy(rows))


@pytest.mark.parametrize("seed", SEEDS)
def test_torchmetrics_module_means(seed):
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    case = make_case(seed)
    preds, graded, binary, indexes = _torchmetrics_inputs(torch, case)
    names = [f"{ours}@{k}" for _, _, ours in TORCHMETRICS for k in KS]
    res = rw.evaluate_topk(case.relevant, case.recommended, names, convention="torchmetrics")
    means = res.mean()
    for cls_name, _, ours in TORCHMETRICS:
        for k in KS:
            metric = getattr(retrieval, cls_name)(top_k=k)     # empty_target_action="neg": 0, counted
            metric.update(preds, graded if ours == "nDCG" else binary, indexes=indexes)
            # Per-user values are float32 in torchmetrics; their float64 mean agrees to ~1e-7.
            assert means[f"{ours}@{k}"] == pytest.approx(float(metric.compute()), rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("seed", SEEDS)
def test_torchmetrics_per_user(seed):
    torch = pytest.importorskip("torch")
    functional = pytest.importorskip("torchmetrics.functional.retrieval")
    case = make_case(seed)
    names = [f"{ours}@{k}" for _, _, ours in TORCHMETRICS for k in KS]
    res = rw.evaluate_topk(case.relevant, case.recommended, names, convention="torchmetrics")
    transcribed = {"AP": torchmetrics_average_precision, "nDCG": torchmetrics_ndcg}
    for u in range(case.grades.shape[0]):
        keep = ~case.train[u]
        scores, grades = case.scores[u, keep], case.grades[u, keep].astype(np.int64)
        preds = torch.from_numpy(scores)
        for _, function, ours in TORCHMETRICS:
            target = torch.from_numpy(grades if ours == "nDCG" else grades > 0)
            for k in KS:
                ours_value = res[f"{ours}@{k}"][u]
                theirs = float(getattr(functional, function)(preds, target, top_k=k))
                if ours in transcribed:
                    copy = transcribed[ours](scores, grades if ours == "nDCG" else grades > 0, k)
                    assert copy == pytest.approx(theirs, rel=1e-6, abs=1e-7), f"transcription of {function}"
                    assert_close(ours_value, copy, f"{ours}@{k} user {u}")
                else:       # one float32 division: the correctly rounded float64 value, rounded
                    assert float(np.float32(ours_value)) == theirs, f"{ours}@{k} user {u}"


def test_torchmetrics_ap_divides_by_hits():
    torch = pytest.importorskip("torch")
    functional = pytest.importorskip("torchmetrics.functional.retrieval")
    # 3 relevant items, one of them ranked first: AP@2 = 1 (÷ hits), not 1/3 (÷ R) or 1/2 (÷ min(R, k)).
    scores, target = np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 0, 1, 1])
    assert float(functional.retrieval_average_precision(torch.from_numpy(scores), torch.from_numpy(target),
                                                        top_k=2)) == 1.0
    res = rw.evaluate_topk(target[None, :], np.array([[0, 1]]), ["AP@2"], convention="torchmetrics")
    assert res["AP@2"][0] == 1.0


def test_torchmetrics_score_filter_not_copied():
    """torchmetrics 1.9.0 zeroes the target of items scored <= 0 in P, R (its numerator), AP and
    RR, not in HitRate or nDCG; rankwise ranks what it is given (here: the list itself)."""
    torch = pytest.importorskip("torch")
    functional = pytest.importorskip("torchmetrics.functional.retrieval")
    preds, target = torch.tensor([0.5, -0.1, 0.3, -0.2]), torch.tensor([0, 1, 0, 0])
    filtered = {"P@4": functional.retrieval_precision, "R@4": functional.retrieval_recall,
                "AP@4": functional.retrieval_average_precision, "RR@4": functional.retrieval_reciprocal_rank}
    for function in filtered.values():
        assert float(function(preds, target, top_k=4)) == 0.0
    assert float(functional.retrieval_hit_rate(preds, target, top_k=4)) == 1.0
    assert float(functional.retrieval_normalized_dcg(preds, target, top_k=4)) == pytest.approx(0.5)
    res = rw.evaluate_topk(np.array([[0, 1, 0, 0]]), np.array([[0, 2, 1, 3]]), list(filtered),
                           convention="torchmetrics")
    assert res.mean() == {"P@4": 0.25, "R@4": 1.0, "AP@4": 1 / 3, "RR@4": 1 / 3}


@pytest.fixture
def float64_default():
    """PyG's metric states follow torch's default dtype (float32 unless set)."""
    torch = pytest.importorskip("torch")
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield torch
    torch.set_default_dtype(previous)


PYG = [("LinkPredPrecision", "P"), ("LinkPredRecall", "R"), ("LinkPredMAP", "AP"), ("LinkPredNDCG", "nDCG"),
       ("LinkPredMRR", "RR"), ("LinkPredHitRatio", "Hits")]


def _pyg_case(torch, seed):
    """PyG's link_pred module, a case, and its labels as COO edge_label_index with their weights."""
    link_pred = pytest.importorskip("torch_geometric.metrics.link_pred")
    case = make_case(seed)
    rows, cols = np.nonzero(case.grades)
    return link_pred, case, torch.from_numpy(np.stack([rows, cols])), torch.from_numpy(case.grades[rows, cols])


@pytest.mark.parametrize("seed", SEEDS)
def test_pyg(seed, float64_default):
    torch = float64_default
    link_pred, case, edge_label_index, _ = _pyg_case(torch, seed)
    pred_index_mat = torch.from_numpy(case.recommended)
    users = case.judged_users
    names = [f"{ours}@{k}" for _, ours in PYG for k in KS]
    res = rw.evaluate_topk(case.relevant, case.recommended, names, convention="pyg")
    theirs = {}
    for cls_name, ours in PYG:
        for k in KS:
            metric = getattr(link_pred, cls_name)(k)
            metric.update(pred_index_mat, edge_label_index)
            theirs[f"{ours}@{k}"] = float(metric.compute())
            per_user = metric._compute(link_pred.LinkPredMetricData(pred_index_mat, edge_label_index)).numpy()
            np.testing.assert_allclose(res[f"{ours}@{k}"][users], per_user[users], rtol=0, atol=TOL,
                                       err_msg=f"{ours}@{k}")
    assert_means(res, theirs, "pyg")


@pytest.mark.parametrize("seed", SEEDS)
def test_pyg_weighted_ndcg(seed, float64_default):
    """LinkPredNDCG(weighted=True): linear gain of the weights, ideal = the k largest weights."""
    torch = float64_default
    link_pred, case, edge_label_index, weight = _pyg_case(torch, seed)
    names = [f"nDCG@{k}" for k in KS]
    res = rw.evaluate_topk(case.relevant, case.recommended, names, gain="linear", empty="skip")
    theirs = {}
    for k in KS:
        metric = link_pred.LinkPredNDCG(k, weighted=True)
        metric.update(torch.from_numpy(case.recommended), edge_label_index, weight)
        theirs[f"nDCG@{k}"] = float(metric.compute())
    assert_means(res, theirs, None)


def _recommenders_frames(pd, case, seed):
    """rating_true from the grades; rating_pred from the lists, some cut short and three users absent."""
    rng = np.random.default_rng(seed + 1000)
    n_users, depth = case.recommended.shape
    absent = set(rng.choice(n_users, size=3, replace=False).tolist())
    rows, cols = np.nonzero(case.grades)
    rating_true = pd.DataFrame({"userID": rows, "itemID": cols, "rating": case.grades[rows, cols]})
    pred = [(u, int(item), float(depth - pos)) for u in range(n_users) if u not in absent
            for pos, item in enumerate(case.recommended[u, :int(rng.integers(depth // 2, depth + 1))])]
    rating_pred = pd.DataFrame(pred, columns=["userID", "itemID", "prediction"])
    return rating_true, rating_pred


@pytest.mark.parametrize("seed", SEEDS)
def test_recommenders(seed):
    """Users absent from the predictions: P, R and the MAPs average over the users common to both
    frames, as convention="recommenders" does; ndcg_at_k averages over every user of rating_true
    (absent ones count 0), which is nDCG with absent users as empty lists (convention="pyg")."""
    pd = pytest.importorskip("pandas")
    evaluation = pytest.importorskip("recommenders.evaluation.python_evaluation")
    case = make_case(seed)
    rating_true, rating_pred = _recommenders_frames(pd, case, seed)
    common = rating_true[rating_true["userID"].isin(set(rating_pred["userID"]))]
    relevant = rating_true.set_axis(["user", "item", "grade"], axis=1)
    ranks = rating_pred.groupby("userID").cumcount() + 1
    recommended = pd.DataFrame({"user": rating_pred["userID"], "item": rating_pred["itemID"], "rank": ranks})
    theirs, ndcg_all = {}, {}
    for k in KS:
        theirs[f"P@{k}"] = evaluation.precision_at_k(rating_true, rating_pred, k=k)
        theirs[f"R@{k}"] = evaluation.recall_at_k(rating_true, rating_pred, k=k)
        theirs[f"AP@{k}"] = evaluation.map_at_k(rating_true, rating_pred, k=k)
        theirs[f"AP(denom=R)@{k}"] = evaluation.map(rating_true, rating_pred, k=k)
        theirs[f"nDCG@{k}"] = evaluation.ndcg_at_k(common, rating_pred, k=k)
        ndcg_all[f"nDCG@{k}"] = evaluation.ndcg_at_k(rating_true, rating_pred, k=k)
    res = rw.evaluate_topk(relevant, recommended, list(theirs), convention="recommenders")
    assert_means(res, theirs, "recommenders")
    res = rw.evaluate_topk(relevant, recommended, list(ndcg_all), convention="pyg")
    assert_means(res, ndcg_all, "pyg, for Recommenders' ndcg_at_k")


def _has_java():
    home = os.environ.get("JAVA_HOME")
    return os.path.exists(os.path.join(home, "bin", "java")) if home else shutil.which("java") is not None


def spark_marks(test):
    for mark in SPARK_WARNINGS:
        test = mark(test)
    return test


@pytest.fixture(scope="module")
def spark_context():
    pyspark = pytest.importorskip("pyspark")
    if not _has_java():
        pytest.skip("pyspark needs Java")
    conf = pyspark.SparkConf().setMaster("local[1]").setAppName("rankwise-peers").set("spark.ui.enabled", "false")
    context = pyspark.SparkContext.getOrCreate(conf)
    context.setLogLevel("ERROR")
    yield context
    context.stop()


def _spark_rows(case, seed):
    """(ranked ids, truth ids, truth relevances) per user; some lists cut short, one empty."""
    rng = np.random.default_rng(seed + 2000)
    n_users, depth = case.recommended.shape
    lists = np.full_like(case.recommended, -1)
    rows = []
    for u in range(n_users):
        length = 0 if u == 2 else int(rng.integers(1, depth + 1))
        lists[u, :length] = case.recommended[u, :length]
        truth = rng.permutation(np.flatnonzero(case.grades[u]))
        rows.append(([int(i) for i in lists[u, :length]], [int(i) for i in truth],
                     [float(case.grades[u, i]) for i in truth]))
    return lists, rows


@spark_marks
@pytest.mark.parametrize("seed", SPARK_SEEDS)
def test_spark(seed, spark_context):
    from pyspark.mllib.evaluation import RankingMetrics

    case = make_case(seed)
    lists, rows = _spark_rows(case, seed)
    metrics = RankingMetrics(spark_context.parallelize([(pred, truth) for pred, truth, _ in rows], 1))
    theirs = {"AP": metrics.meanAveragePrecision}
    for k in KS:
        theirs[f"P@{k}"] = metrics.precisionAt(k)
        theirs[f"R@{k}"] = metrics.recallAt(k)
        theirs[f"AP@{k}"] = metrics.meanAveragePrecisionAt(k)
        theirs[f"nDCG@{k}"] = metrics.ndcgAt(k)
    res = rw.evaluate_topk(case.relevant, lists, list(theirs), convention="spark")
    assert_means(res, theirs, "spark")


def _spark_graded_ndcg(context, rows, k):
    """RankingMetrics(...).ndcgAt(k) on (ranked ids, truth ids, relevances) rows, built in the JVM
    through py4j: pyspark's own wrapper (PythonMLLibAPI.newRankingMetrics, Spark 4.3.0) keeps only
    the first two columns, so graded nDCG is out of reach from pyspark.mllib."""
    jvm, gateway = context._jvm, context._gateway

    def array(values, kind):
        out = gateway.new_array(kind, len(values))
        for i, value in enumerate(values):
            out[i] = value
        return out

    rows_j = jvm.java.util.ArrayList()
    for pred, truth, rel in rows:
        rows_j.add(jvm.scala.Tuple3(array([jvm.java.lang.Integer(i) for i in pred], jvm.java.lang.Object),
                                    array([jvm.java.lang.Integer(i) for i in truth], jvm.java.lang.Object),
                                    array([float(r) for r in rel], jvm.double)))
    tag = getattr(jvm.scala.reflect, "ClassTag$").__getattr__("MODULE$").Any()
    metrics = jvm.org.apache.spark.mllib.evaluation.RankingMetrics(context._jsc.parallelize(rows_j, 1).rdd(), tag)
    return metrics.ndcgAt(k)


@spark_marks
@pytest.mark.parametrize("seed", SPARK_SEEDS)
def test_spark_graded_ndcg_ideal_bug(seed, spark_context):
    """Spark's graded nDCG takes the ideal DCG from the truth in the order given.

    The real Spark equals the transcription of its code, so the bug is Spark's; with the truth
    sorted by decreasing relevance Spark is right, and equals rankwise's exponential-gain nDCG;
    rankwise gives that value whatever the order of the truth. pyspark's wrapper drops the
    relevances altogether (binary nDCG).
    """
    from pyspark.mllib.evaluation import RankingMetrics

    case = make_case(seed)
    lists, rows = _spark_rows(case, seed)
    ordered = []
    for pred, truth, rel in rows:
        order = sorted(range(len(truth)), key=lambda i: -rel[i])
        ordered.append((pred, [truth[i] for i in order], [rel[i] for i in order]))
    wrapper = RankingMetrics(spark_context.parallelize(rows, 1))
    binary = RankingMetrics(spark_context.parallelize([(pred, truth) for pred, truth, _ in rows], 1))
    names = [f"nDCG(gain=exponential)@{k}" for k in KS]
    res = rw.evaluate_topk(case.relevant, lists, names)
    for k, name in zip(KS, names, strict=True):
        assert wrapper.ndcgAt(k) == binary.ndcgAt(k), "pyspark passed the relevances on"
        copy = np.mean([spark_ndcg_at(pred, truth, rel, k) for pred, truth, rel in rows])
        assert_close(_spark_graded_ndcg(spark_context, rows, k), copy, f"Spark vs its transcription, {name}")
        assert_close(res.mean()[name], _spark_graded_ndcg(spark_context, ordered, k),
                     f"{name} vs Spark on presorted truth")


@spark_marks
def test_spark_graded_ndcg_above_one(spark_context):
    # Item 7 (relevance 3) ranked first, item 4 (relevance 1) second: a perfect ranking. Spark's
    # ideal takes 4 then 7 (the given order), so its nDCG exceeds 1.
    spark = _spark_graded_ndcg(spark_context, [([7, 4], [4, 7], [1.0, 3.0])], 2)
    expected = (7 / math.log(2) + 1 / math.log(3)) / (1 / math.log(2) + 7 / math.log(3))
    assert_close(spark, expected, "Spark's nDCG of a perfect ranking")
    assert spark > 1
    grades = np.zeros((1, 8))
    grades[0, [4, 7]] = [1.0, 3.0]
    res = rw.evaluate_topk(grades, np.array([[7, 4]]), ["nDCG(gain=exponential)@2"])
    assert res["nDCG(gain=exponential)@2"][0] == 1.0
