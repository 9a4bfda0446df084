"""evaluate_topk: layouts, the brute-force reference, evaluate and trec_eval, bad input, threads."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import rankwise as rw
from rankwise.lists.conventions import CONVENTIONS, get_convention
from rankwise.recsys._topk import evaluate_range
from rankwise.recsys.layouts import as_recommended
from rankwise.testing.recsys import evaluate_topk as reference

pd = pytest.importorskip("pandas")

METRICS = ["RR", "RR@3", "AP", "AP@3", "P@1", "P@3", "P@10", "R@2", "R@10", "Rprec", "F1@3", "Hits@1",
           "Hits@3", "DCG", "DCG@3", "nDCG", "nDCG@2", "nDCG@10", "nDCG(gain=exponential)@3", "ERR", "ERR@2",
           "RBP(p=0.5)", "RBP(p=0.9, graded=True)@4"]
# The definitions where libraries differ (not in rw.evaluate's comparison below).
VARIANTS = ["AP(denom=min)@3", "AP(denom=min)", "AP(denom=hits)@3", "AP(denom=hits)", "R(denom=min)@2",
            "R(denom=min)@10", "nDCG(ideal=all)@2", "nDCG(ideal=all, gain=exponential)@3", "AP(denom=R)@3"]


def parse(name):
    spec = rw.lists.names.parse_metric(name)
    kind = rw.lists.names._CANONICAL[spec.kind]
    return kind, spec.k, {"gain": spec.gain or "linear", "p": spec.p, "graded": spec.graded,
                          "denom": spec.denom or "R", "ideal": spec.ideal or "cut"}


def random_data(rng, n_users=30, n_items=25, k=8, max_grade=3, pad=True):
    """A users x items grade matrix and (users, k) lists with -1 padding, distinct items per list."""
    grades = rng.integers(0, max_grade + 1, size=(n_users, n_items)) * (rng.random((n_users, n_items)) < 0.3)
    lists = np.full((n_users, k), -1, dtype=np.int64)
    for u in range(n_users):
        length = rng.integers(0, k + 1) if pad else k
        lists[u, :length] = rng.permutation(n_items)[:length]
    return grades, lists


def as_dicts(grades, lists):
    relevant = {u: {int(i): g.item() for i, g in enumerate(row) if g > 0} for u, row in enumerate(grades)}
    recommended = {u: [int(i) for i in row if i >= 0] for u, row in enumerate(lists)}
    return relevant, recommended


def check_against_reference(grades, lists, names, **options):
    res = rw.evaluate_topk(sp.csr_array(grades), lists, names, **options)
    relevant, recommended = as_dicts(grades, lists)
    for name in names:
        kind, k, params = parse(name)
        ref = reference(relevant, recommended, kind, k, level=options.get("relevance_level", 1),
                        max_grade=options.get("max_grade"), empty=options.get("empty", "zero"),
                        **{**params, "gain": params["gain"] if "gain=" in name else options.get("gain", "linear")})
        expected = np.array([float(ref[u]) for u in range(len(lists))])
        np.testing.assert_allclose(res[name], expected, rtol=1e-12, atol=1e-15, err_msg=name)


def test_reference_random(rng):
    for _ in range(5):
        grades, lists = random_data(rng)
        check_against_reference(grades, lists, METRICS + VARIANTS)
        check_against_reference(grades, lists, METRICS + VARIANTS, relevance_level=2, gain="exponential",
                                max_grade=5)
        check_against_reference(grades, lists, ["MAP", "nDCG@3"], empty="skip")


@given(st.data())
def test_reference_hypothesis(data):
    n_users = data.draw(st.integers(0, 6))
    n_items = data.draw(st.integers(1, 12))
    k = data.draw(st.integers(0, 6))
    grades = np.array(data.draw(st.lists(st.lists(st.sampled_from([0, 0, 0, 1, 2, 0.5]), min_size=n_items,
                                                  max_size=n_items), min_size=n_users, max_size=n_users)),
                      dtype=np.float64).reshape(n_users, n_items)
    lists = np.full((n_users, k), -1)
    for u in range(n_users):
        items = data.draw(st.lists(st.integers(0, n_items - 1), unique=True, max_size=min(k, n_items)))
        lists[u, :len(items)] = items
    level = data.draw(st.sampled_from([1, 0.5, 2]))
    names = data.draw(st.lists(st.sampled_from(METRICS + VARIANTS), min_size=1, max_size=4))
    check_against_reference(grades, lists, names, relevance_level=level)


def layouts_of(grades, lists):
    """Every layout of the same data: (relevant, recommended) pairs, users 0..n-1 each."""
    n_users = len(lists)
    rows = [row[row >= 0] for row in lists]
    users = np.repeat(np.arange(n_users), [r.size for r in rows])
    items = np.concatenate(rows)
    ranks = np.concatenate([np.arange(1, r.size + 1) for r in rows])
    rank_frame = pd.DataFrame({"user": users, "item": items, "rank": ranks}).sample(frac=1, random_state=1)
    score_frame = pd.DataFrame({"user": users, "item": items, "score": -ranks * 0.5})
    u, i = np.nonzero(grades)
    rel_frame = pd.DataFrame({"user": u, "item": i, "grade": grades[u, i]})
    rel_dict = {user: {int(item): float(grades[user, item]) for item in np.flatnonzero(grades[user])}
                for user in range(n_users)}
    relevants = [sp.csr_array(grades), sp.coo_matrix(grades), sp.csc_array(grades), grades, rel_frame, rel_dict]
    recommendeds = [lists, lists.astype(np.int32), [np.asarray(r) for r in rows], rank_frame, score_frame]
    return relevants, recommendeds


def test_every_layout_same_numbers(rng):
    grades, lists = random_data(rng, n_users=12)
    grades[:, 0] = 1  # every user has a relevant item: the id-keyed forms then list every user
    names = ["MAP", "nDCG@5", "P@3", "R@4", "ERR", "RBP(p=0.8, graded=True)"]
    expected = rw.evaluate_topk(grades, lists, names, n_items=grades.shape[1])
    relevants, recommendeds = layouts_of(grades, lists)
    for relevant in relevants:
        for recommended in recommendeds:
            res = rw.evaluate_topk(relevant, recommended, names)
            assert res.query_ids.tolist() == list(range(len(lists)))
            for name in names:
                np.testing.assert_array_equal(res[name], expected[name], err_msg=f"{type(relevant)} {name}")


def test_binary_lists_of_ids(rng):
    grades, lists = random_data(rng, max_grade=1)
    rows = [np.flatnonzero(row) for row in grades]
    a = rw.evaluate_topk(rows, lists, METRICS, n_items=grades.shape[1])
    b = rw.evaluate_topk(grades, lists, METRICS)
    for name in METRICS:
        np.testing.assert_array_equal(a[name], b[name])


def test_equals_evaluate_when_all_relevant_listed(rng):
    """Every relevant item inside the list: evaluate with ties='stable' on the list, bit for bit."""
    n_users, n_items, k = 40, 60, 12
    scores = rng.permutation(n_users * n_items).reshape(n_users, n_items).astype(np.float64)
    top = rw.top_k(scores, k)
    np.testing.assert_array_equal(top, np.argsort(-scores, axis=1)[:, :k])
    grades = np.zeros((n_users, n_items))
    for u in range(n_users):
        chosen = rng.choice(top[u], size=rng.integers(0, k), replace=False)
        grades[u, chosen] = rng.choice([0.25, 1, 2, 3, 7], size=chosen.size)
    y_true = np.take_along_axis(grades, top, axis=1)
    y_score = np.take_along_axis(scores, top, axis=1)
    names = METRICS + VARIANTS + ["RBP(p=0.3, graded=True)", "ERR@5"]
    settings = [{}, {"relevance_level": 2, "gain": "exponential"}, {"max_grade": 9}]
    for options in settings + [{"convention": name, "relevance_level": 2} for name in sorted(CONVENTIONS)]:
        got = rw.evaluate_topk(sp.csr_array(grades), top, names, **options)
        want = rw.evaluate(y_true, y_score, names, ties="stable", **options)
        for name in names:
            np.testing.assert_array_equal(got[name], want[name], err_msg=name)
        assert got.n_relevant.tolist() == want.n_relevant.tolist()
        np.testing.assert_array_equal(list(got.mean().values()), list(want.mean().values()))


def test_equals_trec_eval_with_unretrieved_relevant(rng):
    """Relevant items outside the lists count in R and the ideal, as trec_eval's judged documents."""
    n_users, n_items, k = 25, 40, 10
    grades = rng.integers(0, 4, size=(n_users, n_items)) * (rng.random((n_users, n_items)) < 0.3)
    grades[:, 0] = 2  # every user has a relevant item (trec_eval skips users without one)
    lists = np.array([rng.permutation(n_items)[:k] for _ in range(n_users)])
    qrels = rw.Qrels.from_dict({f"u{u}": {f"d{i}": int(g) for i, g in enumerate(grades[u]) if g > 0}
                                for u in range(n_users)})
    run = rw.Run.from_dict({f"u{u}": {f"d{i}": float(k - p) for p, i in enumerate(lists[u])} for u in range(n_users)})
    pairs = {"map": "AP", "map_cut_5": "AP@5", "P_5": "P@5", "recall_5": "R@5", "ndcg_cut_5": "nDCG@5",
             "ndcg": "nDCG", "recip_rank": "RR", "Rprec": "Rprec", "success_1": "Hits@1"}
    trec = rw.trec_eval(qrels, run, list(pairs))
    order = [int(q[1:]) for q in trec.query_ids]
    ours = rw.evaluate_topk(sp.csr_array(grades), lists, list(pairs.values()))
    for measure, name in pairs.items():
        np.testing.assert_allclose(ours[name][order], trec[measure], rtol=1e-13, err_msg=measure)


def test_users_aligned_by_id():
    relevant = {"ann": {3: 1, 5: 2}, "bob": [1], "cy": []}
    recommended = pd.DataFrame({"user": ["bob", "ann", "ann", "dee"], "item": [1, 5, 2, 4],
                                "rank": [1, 1, 2, 1]})
    res = rw.evaluate_topk(relevant, recommended, ["R@2", "P@1"], empty="skip")
    assert res.query_ids.tolist() == ["ann", "bob", "cy", "dee"]
    np.testing.assert_array_equal(res["R@2"], [0.5, 1.0, np.nan, np.nan])
    assert res.n_relevant.tolist() == [2, 1, 0, 0]
    # a user of relevant missing from recommended has an empty list
    res = rw.evaluate_topk({0: [1], 1: [2]}, [np.array([1])], ["R@1"])
    assert res["R@1"].tolist() == [1.0, 0.0]


def test_short_lists_precision_divides_by_k():
    res = rw.evaluate_topk(np.array([[1, 1, 0, 0]]), np.array([[0, -1, -1]]), ["P@3", "P@1", "R@3", "F1@3"])
    assert [res[n][0] for n in ["P@3", "P@1", "R@3"]] == [1 / 3, 1.0, 0.5]
    assert res["F1@3"][0] == 2 / 5


def test_empty_policy():
    grades = np.array([[0, 1], [0, 0]])
    lists = np.array([[1], [0]])
    assert rw.evaluate_topk(grades, lists, "MAP")["MAP"].tolist() == [1.0, 0.0]
    assert math.isnan(rw.evaluate_topk(grades, lists, "MAP", empty="skip")["MAP"][1])
    with pytest.raises(ValueError, match="no relevant item"):
        rw.evaluate_topk(grades, lists, "MAP", empty="error")


def test_threads_identical(rng):
    grades, lists = random_data(rng, n_users=3000, n_items=200, k=20)
    one = rw.evaluate_topk(sp.csr_array(grades), lists, METRICS, n_threads=1)
    for threads in (2, 3, 7):
        other = rw.evaluate_topk(sp.csr_array(grades), lists, METRICS, n_threads=threads)
        for name in METRICS:
            np.testing.assert_array_equal(one[name], other[name])


def test_read_only_inputs_unchanged(rng):
    grades, lists = random_data(rng)
    lists32 = lists.astype(np.int32)
    for arr in (grades, lists, lists32):
        arr.flags.writeable = False
    matrix = sp.csr_array(grades)
    for arr in (matrix.data, matrix.indices, matrix.indptr):
        arr.flags.writeable = False
    copies = [grades.copy(), lists.copy(), matrix.data.copy(), matrix.indices.copy()]
    a = rw.evaluate_topk(matrix, lists, METRICS)
    b = rw.evaluate_topk(grades, lists32, METRICS)
    for name in METRICS:
        np.testing.assert_array_equal(a[name], b[name])
    for before, after in zip(copies, [grades, lists, matrix.data, matrix.indices], strict=True):
        np.testing.assert_array_equal(before, after)


@pytest.mark.parametrize(("lists", "message"), [
    (np.array([[1, 2, 1]]), r"user 0 lists item 1 twice, at positions 0 and 2"),
    (np.array([[1, 9]]), r"user 0 has item id 9 at position 1 .*out of range: ids are 0 to 3"),
    (np.array([[1, -2]]), r"item id -2 at position 1"),
    (np.array([[1, -1, 2]]), r"item 2 at position 2 after the -1 padding at position 1"),
])
def test_bad_lists(lists, message):
    with pytest.raises(ValueError, match=message):
        rw.evaluate_topk(np.eye(1, 4), lists, "MAP")
    with pytest.raises(ValueError, match=message.replace("ids are 0 to 3", "ids are 0 to 3")):
        as_recommended(lists, n_items=4)


def test_first_bad_user_reported(rng):
    lists = np.tile(np.arange(10), (5000, 1))
    lists[4000, 3] = 2
    lists[1234, 5] = 99
    with pytest.raises(ValueError, match="user 1234 has item id 99"):
        rw.evaluate_topk(sp.csr_array((5000, 10)), lists, "P@1", n_threads=2)


def test_bad_arguments():
    grades, lists = np.array([[0, 1, 2]]), np.array([[2, 0]])
    cases = [
        (dict(relevant=np.array([[0, -1, 1]])), ValueError, "relevant"),
        (dict(relevant=np.array([[0, np.nan, 1]])), ValueError, "relevant"),
        (dict(relevant=np.array([["a", "b", "c"]])), TypeError, "relevant"),
        (dict(relevant=np.array([[0, 1, 2], [1, 0, 0]])), ValueError, "2 users .* recommended 1"),
        (dict(relevant=object()), TypeError, "relevant must be"),
        (dict(relevant=[[0, 0]]), ValueError, "user 0 has item 0 twice"),
        (dict(relevant=[[5]], n_items=3), ValueError, r"item id 5 out of range \(0 to 2\)"),
        (dict(relevant={0: {1: -1}}), ValueError, "grade -1"),
        (dict(relevant={"a": [1]}), TypeError, "by position"),
        (dict(recommended=np.array([[0.5, 1.0]])), TypeError, "recommended must hold integer"),
        (dict(recommended=np.array([0, 1])), ValueError, "2-D"),
        (dict(recommended=[np.array([[0]])]), ValueError, r"recommended\[0\] must be a 1-D"),
        (dict(recommended=pd.DataFrame({"user": [0], "item": [1]})), ValueError, "rank"),
        (dict(recommended=pd.DataFrame({"usr": [0], "item": [1], "rank": [1]})), ValueError, "missing user"),
        (dict(recommended=pd.DataFrame({"user": [0, 0], "item": [1, 2], "score": [0.5, 0.5]})), ValueError,
         "user 0 has two items with the score 0.5.*ties="),
        (dict(recommended=pd.DataFrame({"user": [0, 0], "item": [1, 2], "rank": [1, 3]})), ValueError,
         "ranks of user 0 must be 1, 2"),
        (dict(recommended=pd.DataFrame({"user": [0], "item": [1], "score": [np.nan]})), ValueError, "NaN"),
        (dict(metrics="P"), ValueError, "cutoff"),
        (dict(metrics="nope"), ValueError, "unknown metric"),
        (dict(metrics=[]), ValueError, "at least one"),
        (dict(relevance_level=0), ValueError, "relevance_level"),
        (dict(gain="log"), ValueError, "gain"),
        (dict(max_grade=1), ValueError, "max_grade=1 is below the largest grade in relevant"),
        (dict(max_grade=-1), ValueError, "max_grade"),
        (dict(empty="never"), ValueError, "empty"),
        (dict(n_items=0), ValueError, "n_items"),
        (dict(n_items=2.0), TypeError, "n_items"),
        (dict(n_items=5), ValueError, "n_items=5 differs from the 3 items"),
        (dict(n_threads=0), ValueError, "n_threads"),
        (dict(convention="nope"), ValueError, "convention must be one of"),
        (dict(convention=1), TypeError, "convention"),
    ]
    for change, error, message in cases:
        args = {"relevant": grades, "recommended": lists, "metrics": ["MAP"], **change}
        with pytest.raises(error, match=message):
            rw.evaluate_topk(args.pop("relevant"), args.pop("recommended"), args.pop("metrics"), **args)
    with pytest.raises(ValueError, match="overflows above 1023"):
        rw.evaluate_topk(np.array([[0, 2000.0]]), lists, "nDCG(gain=exponential)")


def test_as_recommended_layouts():
    lists = as_recommended(np.array([[3, 1, -1], [0, 2, 1]], dtype=np.int32))
    assert lists.items.dtype == np.int32 and lists.indptr.tolist() == [0, 2, 5]
    full = np.array([[3, 1], [0, 2]])
    assert as_recommended(full).items.base is full  # no copy without padding
    frame = pd.DataFrame({"user": ["b", "a", "a"], "item": [7, 1, 2], "score": [0.1, 0.2, 0.9]})
    lists = as_recommended(frame)
    assert lists.user_ids.tolist() == ["a", "b"] and lists.items.tolist() == [2, 1, 7]
    empty = as_recommended(np.zeros((3, 0), dtype=np.int64))
    assert empty.n_users == 3 and empty.indptr.tolist() == [0, 0, 0, 0]


def test_many_users_one_thread():
    """More users than the kernel's per-user tags (32767): marks of earlier users never count."""
    n = 70_000
    users = np.arange(n)
    relevant = [np.array([u % 5]) for u in users]
    lists = np.stack([users % 5, (users + 1) % 5], axis=1)
    res = rw.evaluate_topk(relevant, lists, ["P@1", "R@2", "RR"], n_items=5, n_threads=1)
    assert res.mean() == {"P@1": 1.0, "R@2": 1.0, "RR": 1.0}
    lists[n - 1] = [2, 2]
    with pytest.raises(ValueError, match=f"user {n - 1} lists item 2 twice"):
        rw.evaluate_topk(relevant, lists, ["P@1"], n_items=5, n_threads=1)


def test_sparse_item_ids_renumbered(rng):
    """A catalog far larger than the ids given: the same numbers, and the same errors."""
    grades, lists = random_data(rng)
    names = ["MAP", "nDCG@5", "P@3", "R@4"]
    scale = 10**9 + 7
    relevant = {u: {i * scale: g for i, g in row.items()} for u, row in as_dicts(grades, lists)[0].items()}
    wide = np.where(lists >= 0, lists * scale, -1)
    a = rw.evaluate_topk(relevant, wide, names)
    b = rw.evaluate_topk(grades, lists, names, n_items=grades.shape[1])
    c = rw.evaluate_topk([np.flatnonzero(r) for r in grades], lists, names, n_items=2**62)
    for name in names:
        np.testing.assert_array_equal(a[name], b[name])
    assert c["P@3"].tolist() == rw.evaluate_topk(grades > 0, lists, "P@3")["P@3"].tolist()
    wide[3, 1] = 2**62
    with pytest.raises(ValueError, match=r"user 3 has item id 4611686018427387904 at position 1 .*out of range"):
        rw.evaluate_topk([np.array([0])] * len(wide), wide, names, n_items=2**61)


def test_kernel_returns_at_once_when_stopped():
    flag = np.zeros(24, dtype=np.uint8)
    flag[0] = 1
    items, indptr = np.arange(6, dtype=np.int64), np.array([0, 3, 6])
    relevant = (np.array([0, 1, 2]), np.array([0, 4]), np.array([1.0, 1.0]))
    spec = (np.array([1], dtype=np.int32), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint8), np.zeros(1),
            np.zeros(1, dtype=np.uint8))
    output = (np.full((2, 1), -7.0), np.full(2, -7, dtype=np.int64), np.full(2, -7, dtype=np.int64))
    options = {"n_items": 6, "level": 1.0, "max_grade": 1.0, "max_relevant": 1}
    assert evaluate_range(items, indptr, relevant, spec, options, 0, 2, output, np.zeros(4, dtype=np.int64),
                          flag) == 0
    assert all(np.all(out == -7) for out in output)
    evaluate_range(items, indptr, relevant, spec, options, 0, 2, output, np.zeros(4, dtype=np.int64))
    assert output[0].ravel().tolist() == [1.0, 1 / 2] and output[1].tolist() == [1, 1]


def test_items_named_by_strings(rng):
    """Dicts and DataFrames may name items by strings: the numbers of the same data with ids."""
    grades, lists = random_data(rng, n_users=10)
    grades[:, 0] = 1
    names = ["MAP", "nDCG@5", "P@3", "R@4", "ERR"]
    expected = rw.evaluate_topk(grades, lists, names)
    relevant, recommended = as_dicts(grades, lists)
    relevant = {u: {f"item {i}": g for i, g in row.items()} for u, row in relevant.items()}
    frame = pd.DataFrame([(u, f"item {i}", r) for u, row in recommended.items() for r, i in enumerate(row, 1)],
                         columns=["user", "item", "rank"])
    got = rw.evaluate_topk(relevant, frame, names)
    for name in names:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)
    twice = pd.DataFrame({"user": [0, 0], "item": ["a", "a"], "rank": [1, 2]})
    with pytest.raises(ValueError, match="user 0 lists item 'a' twice"):
        rw.evaluate_topk({0: ["a"]}, twice, "P@1")
    with pytest.raises(ValueError, match="user 0 has item 'a' twice"):
        rw.evaluate_topk(pd.DataFrame({"user": [0, 0], "item": ["a", "a"]}), twice.iloc[:1], "P@1")
    with pytest.raises(TypeError, match="both by labels"):
        rw.evaluate_topk({0: [1]}, twice.iloc[:1], "P@1")
    with pytest.raises(TypeError, match="both by labels"):
        rw.evaluate_topk({0: ["a"]}, np.array([[1]]), "P@1")
    with pytest.raises(TypeError, match="n_items applies to integer item ids"):
        rw.evaluate_topk({0: ["a"]}, twice.iloc[:1], "P@1", n_items=3)
    with pytest.raises(TypeError, match="integer ids"):
        as_recommended(twice.iloc[:1])
    empty = rw.evaluate_topk({0: []}, twice.iloc[:1], "P@1")
    assert empty["P@1"].tolist() == [0.0]


@pytest.mark.parametrize("name", sorted(CONVENTIONS))
def test_conventions_against_reference(rng, name):
    """Each convention's definitions, labels, empty and absent users, against the reference."""
    conv = get_convention(name)
    grades, lists = random_data(rng, n_users=40)
    relevant, recommended = as_dicts(grades, lists)
    recommended = {u: items for u, items in recommended.items() if u % 4}  # users 0, 4, ... have no list
    frame = pd.DataFrame([(u, i, r) for u, items in recommended.items() for r, i in enumerate(items, 1)],
                         columns=["user", "item", "rank"])
    names = ["MAP@5", "AP", "R@5", "nDCG@3", "nDCG", "P@5", "MRR", "AP(denom=R)@5"]
    res = rw.evaluate_topk(relevant, frame, names, convention=name, relevance_level=2)
    users = sorted(set(frame["user"]) if conv.absent == "skip" else relevant)
    assert res.query_ids.tolist() == users
    graded = {u: {i: (1 if g >= 2 else 0) if conv.binary else g for i, g in relevant[u].items()} for u in users}
    lists_of = {u: recommended.get(u, []) for u in users}
    for metric in names:
        spec = conv.apply(rw.lists.names.parse_metric(metric))
        kind = rw.lists.names._CANONICAL[spec.kind]
        ref = reference(graded, lists_of, kind, spec.k, level=1 if conv.binary else 2, denom=spec.denom or "R",
                        ideal=spec.ideal or "cut", empty=conv.empty)
        np.testing.assert_allclose(res[metric], [float(ref[u]) for u in users], rtol=1e-12, atol=1e-15,
                                   err_msg=metric)
    if conv.micro_precision:
        counted = [u for u in users if any(g >= 2 for g in relevant[u].values())]
        hits = sum(sum(1 for i in lists_of[u][:5] if relevant[u].get(i, 0) >= 2) for u in counted)
        cap = sum(min(5, sum(1 for g in relevant[u].values() if g >= 2)) for u in counted)
        assert res.mean()["P@5"] == pytest.approx(hits / cap, rel=1e-12)
    # the caller's empty= wins over the convention's
    assert not np.isnan(rw.evaluate_topk(relevant, frame, "MAP", convention=name, empty="zero")["MAP"]).any()
