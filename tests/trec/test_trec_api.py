"""Qrels / Run constructors and accessors, TrecResults, errors, and the `rankwise eval` outputs."""
from __future__ import annotations

import csv
import gzip
import io
import json
import math
import random
from importlib import resources

import numpy as np
import pytest

import rankwise as rw
from rankwise._core.strings import StringTable
from rankwise.cli import main
from rankwise.testing import trec as ref
from rankwise.trec.evaluation import _SUMMARY_ONLY, _Join, _line
from rankwise.trec.io import TrecColumns

pd = pytest.importorskip("pandas")

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d9": -1}, "10": {"d1": 0, "x\u00e9": 1}, "9": {"d5": 0}}
RUN = {"q1": {"d1": 0.5, "d3": 0.5, "d7": 0.9, "d9": 0.1}, "10": {"x\u00e9": 2.0, "d1": 3.0},
       "9": {"d5": 1.0}, "only-run": {"d1": 1.0}}


def _objects(qrels=QRELS, run=RUN, name=None):
    return rw.Qrels.from_dict(qrels), rw.Run.from_dict(run, name=name)


def _write(path, text: str):
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _as_float(mapping):
    return {q: {d: float(v) for d, v in docs.items()} for q, docs in mapping.items()}


# ----------------------------------------------------------------------------- constructors

def test_qrels_from_dict_accessors_and_round_trip():
    qrels = rw.Qrels.from_dict(QRELS)
    assert len(qrels) == 7 and qrels.n_queries == 3
    assert list(qrels.query_ids) == ["q1", "10", "9"]         # as first seen
    assert qrels.to_dict() == _as_float(QRELS)
    assert rw.Qrels.from_dict(qrels.to_dict()).to_dict() == _as_float(QRELS)


def test_run_from_dict_accessors_and_name():
    run = rw.Run.from_dict(RUN, name="bm25")
    assert run.name == "bm25" and len(run) == 8 and run.n_queries == 4
    assert set(run.query_ids) == set(RUN)
    assert run.to_dict() == _as_float(RUN)
    assert isinstance(rw.Run.from_dict(RUN).name, str)


def test_integer_keys_are_their_decimal_text():
    qrels = rw.Qrels.from_dict({301: {7: 1, "7b": 0, np.int64(-8): 1}})
    run = rw.Run.from_dict({301: {7: 0.5}})
    assert qrels.to_dict() == {"301": {"7": 1.0, "7b": 0.0, "-8": 1.0}}
    assert rw.trec_eval(qrels, run, "recall.1").mean()["recall_1"] == 0.5


BYTES_RUN = {"q\u00e9": {"d1": 0.5, "d\u00e92": 1.5}, "q2": {"d1": 2.0}}


def _bytes_dict(mapping):
    return {q.encode(): {d.encode(): v for d, v in docs.items()} for q, docs in mapping.items()}


def _rows(mapping):
    return [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]


def test_bytes_ids_are_decoded_as_utf8_by_every_constructor():
    want = _as_float(BYTES_RUN)
    assert rw.Run.from_dict(_bytes_dict(BYTES_RUN)).to_dict() == want
    assert rw.Qrels.from_dict(_bytes_dict(BYTES_RUN)).to_dict() == want
    q, d, v = zip(*_rows(BYTES_RUN), strict=True)
    qb, db = [s.encode() for s in q], [s.encode() for s in d]
    for query_ids, doc_ids in ((np.array(qb), np.array(db)),                             # dtype S
                               (np.array(qb, dtype=object), np.array(db, dtype=object)),
                               (np.array(qb, dtype=object), np.array(d, dtype=object))):  # bytes and str
        assert rw.Run.from_arrays(query_ids, doc_ids, np.array(v)).to_dict() == want
        assert rw.Qrels.from_arrays(query_ids, doc_ids, np.array(v)).to_dict() == want
        frame = pd.DataFrame({"query_id": query_ids, "doc_id": doc_ids, "score": v})
        assert rw.Run.from_pandas(frame).to_dict() == want
    # The same text as str and as bytes is the same id.
    with pytest.raises(ValueError, match=r"Run has document 'd' twice for query 'q'"):
        rw.Run.from_dict({"q": {b"d": 1.0, "d": 2.0}})
    with pytest.raises(ValueError, match=r"Qrels has document '1' twice for query 'q'"):
        rw.Qrels.from_dict({"q": {1: 1, "1": 0}})
    with pytest.raises(ValueError, match=r"Run has document 'd' twice for query 'q'"):
        rw.Run.from_dict({"q": {"d": 1.0}, b"q": {"d": 2.0}})


@pytest.mark.parametrize("build, error, message", [
    # Bytes that are not UTF-8: a ValueError naming the argument and the id.
    (lambda: rw.Run.from_dict({b"\xff": {"d": 1.0}}), ValueError,
     r"Run\.from_dict: a query id is b'\\xff', which is not valid UTF-8"),
    (lambda: rw.Qrels.from_dict({"q": {b"d\xc3": 1}}), ValueError,
     r"Qrels\.from_dict: a document id of query 'q' is b'd\\xc3', which is not valid UTF-8"),
    (lambda: rw.Run.from_arrays(np.array([b"q", b"\xff"]), np.array(["a", "b"]), np.ones(2)), ValueError,
     r"Run\.from_arrays: query_ids\[1\] is b'\\xff', which is not valid UTF-8"),
    (lambda: rw.Qrels.from_arrays(np.array(["q", "q"]), np.array([b"a", b"\xed\xa0\x80"], dtype=object),
                                  np.ones(2)), ValueError,
     r"Qrels\.from_arrays: doc_ids\[1\] is b'\\xed\\xa0\\x80', which is not valid UTF-8"),
    (lambda: rw.Run.from_pandas(pd.DataFrame({"query_id": ["q", "q"], "doc_id": [b"a", b"\x80"],
                                              "score": [1.0, 2.0]})), ValueError,
     r"Run\.from_pandas: column 'doc_id', row 1, is b'\\x80', which is not valid UTF-8"),
    # Floats would silently become "1.0": refused.
    (lambda: rw.Run.from_dict({1.0: {"d": 1.0}}), TypeError,
     r"Run\.from_dict: a query id is the float 1\.0; ids must be str, bytes \(decoded as UTF-8\) or integers"),
    (lambda: rw.Qrels.from_dict({"q": {np.float64(2.0): 1}}), TypeError,
     r"Qrels\.from_dict: a document id of query 'q' is the float 2\.0"),
    (lambda: rw.Run.from_arrays(np.array(["q", 7.0], dtype=object), np.array(["a", "b"]), np.ones(2)),
     TypeError, r"Run\.from_arrays: query_ids\[1\] is the float 7\.0"),
    (lambda: rw.Run.from_arrays(np.array([1.0, 2.0]), np.array(["a", "b"]), np.ones(2)), TypeError,
     r"query_ids must hold integers or strings, got float64"),
    (lambda: rw.Run.from_pandas(pd.DataFrame({"query_id": [1.0, 2.0], "doc_id": ["a", "b"], "score": [1.0, 2.0]})),
     TypeError, r"Run\.from_pandas: column 'query_id' must hold integers or strings, got float64"),
    # Missing ids.
    (lambda: rw.Run.from_dict({None: {"d": 1.0}}), TypeError, r"Run\.from_dict: a query id is missing \(None\)"),
    (lambda: rw.Qrels.from_dict({"q": {float("nan"): 1}}), TypeError, r"a document id of query 'q' is missing \(nan\)"),
    (lambda: rw.Run.from_arrays(np.array(["q", None], dtype=object), np.array(["a", "b"]), np.ones(2)), TypeError,
     r"Run\.from_arrays: query_ids\[1\] is missing \(None\)"),
    (lambda: rw.Run.from_pandas(pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", np.nan],
                                              "score": [1.0, 2.0]})), TypeError,
     r"Run\.from_pandas: column 'doc_id', row 1, is missing \(nan\)"),
    (lambda: rw.Qrels.from_pandas(pd.DataFrame({"query_id": pd.array(["q", None], dtype="string"),
                                                "doc_id": ["a", "b"], "relevance": [1, 0]})), TypeError,
     r"Qrels\.from_pandas: column 'query_id', row 1, is missing \(<NA>\)"),
    # Other types.
    (lambda: rw.Run.from_dict({True: {"d": 1.0}}), TypeError, r"a query id is True of type bool"),
    (lambda: rw.Run.from_dict({("q", 1): {"d": 1.0}}), TypeError, r"a query id is \('q', 1\) of type tuple"),
    (lambda: rw.Run.from_arrays(np.array([1, 2]), np.array(["a", object()], dtype=object), np.ones(2)),
     TypeError, r"Run\.from_arrays: doc_ids\[1\] is <object object at .*> of type object"),
    # Ids that a TREC file cannot hold.
    (lambda: rw.Run.from_dict({"q 1": {"d": 1.0}}), ValueError,
     r"Run\.from_dict: query id 'q 1' could not be read from or written to a TREC file: ids must be non-empty "
     r"without whitespace or NUL, and query ids may not start with '#'"),
    (lambda: rw.Qrels.from_dict({"q": {"": 1}}), ValueError, r"Qrels\.from_dict: document id '' could not be"),
    (lambda: rw.Qrels.from_dict({"q": {"a\tb": 1}}), ValueError, r"Qrels\.from_dict: document id 'a\\tb' could"),
    (lambda: rw.Run.from_dict({"#7": {"d": 1.0}}), ValueError, r"Run\.from_dict: query id '#7' could not be"),
    (lambda: rw.Run.from_arrays(np.array(["q", "q"]), np.array(["a", "b\x00"], dtype=object), np.ones(2)),
     ValueError, r"Run\.from_arrays: document id 'b\\x00' could not be"),
    (lambda: rw.Run.from_pandas(pd.DataFrame({"query_id": ["q\n"], "doc_id": ["a"], "score": [1.0]})),
     ValueError, r"Run\.from_pandas: query id 'q\\n' could not be"),
])
def test_ids_are_converted_explicitly_or_refused(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_ids_that_look_odd_but_fit_a_file_are_kept(tmp_path):
    # A '#' inside a docno, non-ASCII whitespace (not a separator for trec_eval), a query id
    # with a '#' after its first character: each reads back from the file it writes.
    run = rw.Run.from_dict({"q#1": {"#d": 1.0, "a\u00a0b": 2.0}}, name="r")
    run.write(tmp_path / "r.txt")
    assert rw.Run.read(tmp_path / "r.txt").to_dict() == run.to_dict() == {"q#1": {"#d": 1.0, "a\u00a0b": 2.0}}
    assert rw.Run.from_dict({np.str_("q"): {np.bytes_(b"d"): 1.0}}).to_dict() == {"q": {"d": 1.0}}


def test_pandas_round_trip_with_default_and_custom_columns():
    qrels, run = _objects()
    frame = qrels.to_pandas()
    assert list(frame.columns) == ["query_id", "doc_id", "relevance"] and len(frame) == len(qrels)
    assert rw.Qrels.from_pandas(frame).to_dict() == qrels.to_dict()
    frame = run.to_pandas()
    assert list(frame.columns) == ["query_id", "doc_id", "score"] and len(frame) == len(run)
    assert rw.Run.from_pandas(frame).to_dict() == run.to_dict()
    renamed = frame.rename(columns={"query_id": "qid", "doc_id": "docno", "score": "sim"})
    again = rw.Run.from_pandas(renamed, query="qid", doc="docno", score="sim", name="dense")
    assert again.to_dict() == run.to_dict() and again.name == "dense"
    judged = pd.DataFrame({"topic": [1, 1, 2], "doc": ["a", "b", "a"], "grade": [2, 0, 1]})
    assert rw.Qrels.from_pandas(judged, query="topic", doc="doc", relevance="grade").to_dict() == \
        {"1": {"a": 2.0, "b": 0.0}, "2": {"a": 1.0}}


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_files_round_trip(tmp_path, suffix):
    qrels, run = _objects(name="my-run")
    qrels.write(tmp_path / f"q.txt{suffix}")
    run.write(tmp_path / f"r.txt{suffix}")
    if suffix:
        assert gzip.open(tmp_path / f"q.txt{suffix}").read(2)  # really gzip
    back_q = rw.Qrels.read(tmp_path / f"q.txt{suffix}")
    back_r = rw.Run.read(tmp_path / f"r.txt{suffix}")
    assert back_q.to_dict() == qrels.to_dict()
    assert back_r.to_dict() == run.to_dict() and back_r.name == "my-run"
    assert rw.Run.read(tmp_path / f"r.txt{suffix}", name="other").name == "other"
    a = rw.trec_eval(qrels, run, "all_trec").format(per_query=True)
    b = rw.trec_eval(back_q, back_r, "all_trec").format(per_query=True)
    assert a == b


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_reads_trec_files_written_by_hand(tmp_path, suffix):
    qrels_text = "# a comment\n301 0 FT-1 1\n301 0 FT-2 0\n302 0 FT-1 2\n301 0 LA#3 1\n"
    run_text = ("301\tQ0\tFT-2\t1\t  2.5\tsysA\n301 Q0 FT-1 2 2.5 sysA\n301 Q0 LA#3 3 -1 sysA extra junk\n"
                "302 Q0 FT-9 1 1e-3 sysA\n")
    qrels = rw.Qrels.read(_write(tmp_path / f"q{suffix}", qrels_text))
    run = rw.Run.read(_write(tmp_path / f"r{suffix}", run_text))
    assert qrels.to_dict() == {"301": {"FT-1": 1.0, "FT-2": 0.0, "LA#3": 1.0}, "302": {"FT-1": 2.0}}
    assert run.to_dict() == {"301": {"FT-2": 2.5, "FT-1": 2.5, "LA#3": -1.0}, "302": {"FT-9": 0.001}}
    assert run.name == "sysA"
    res = rw.trec_eval(qrels, run, ["map", "recip_rank"], relevance_level=1)
    # 301: FT-2 (nonrel) before FT-1 (tie, docno descending), then LA#3: AP = (1/2 + 2/3) / 2
    assert res["map"][0] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)
    assert res["recip_rank"][0] == 0.5


def test_file_errors_name_the_file_and_line(tmp_path):
    bad = _write(tmp_path / "bad.qrels", "1 0 a 1\n1 0 b\n")
    with pytest.raises(ValueError, match=r"bad\.qrels.*line 2|line 2.*bad\.qrels"):
        rw.Qrels.read(bad)
    dup = _write(tmp_path / "dup.qrels", "1 0 a 1\n1 0 a 0\n")
    with pytest.raises(ValueError, match="duplicate"):
        rw.Qrels.read(dup)
    dup = _write(tmp_path / "dup.run", "1 Q0 a 1 0.5 r\n1 Q0 a 2 0.4 r\n")
    with pytest.raises(ValueError, match="duplicate"):
        rw.Run.read(dup)
    score = _write(tmp_path / "score.run", "1 Q0 a 1 0.5 r\n1 Q0 b 2 high r\n")
    with pytest.raises(ValueError, match=r"score\.run.*line 2|line 2.*score\.run"):
        rw.Run.read(score)
    with pytest.raises(OSError):
        rw.Run.read(tmp_path / "missing.run")


def test_constructor_errors():
    with pytest.raises(ValueError, match="twice|duplicate"):
        rw.Run.from_pandas(pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1.0, 2.0]}))
    with pytest.raises(ValueError, match="twice|duplicate"):
        rw.Qrels.from_pandas(pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "relevance": [1, 0]}))
    with pytest.raises(ValueError):
        rw.Run.from_dict({"q": {"a": float("nan")}})
    with pytest.raises(ValueError):
        rw.Run.from_pandas(pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [np.nan]}))
    with pytest.raises(ValueError, match="query_id"):
        rw.Qrels.from_pandas(pd.DataFrame({"q": ["q"], "d": ["a"], "r": [1]}))
    with pytest.raises(TypeError):
        rw.Qrels.from_dict([("q", "a", 1)])


@pytest.mark.parametrize("call, error, match", [
    (lambda: rw.Qrels.from_dict({"q1": {"d1": "1"}}), TypeError,
     r"Qrels.from_dict: the value for query 'q1', document 'd1' is '1' of type str; values must be real"),
    (lambda: rw.Run.from_dict({"q1": {"d1": None}}), TypeError, r"document 'd1' is None of type NoneType"),
    (lambda: rw.Run.from_dict({"q1": {"d1": 10**400}}), ValueError,
     r"Run.from_dict: the value for query 'q1', document 'd1' is beyond the float64 range"),
    (lambda: rw.Run.from_dict({"q1": {"d1": 1.0}}, name=5), TypeError, r"name must be a str .*got int"),
    (lambda: rw.Run.from_dict({"q1": {"d1": 1.0}}, name="my run"), ValueError, r"name must be a non-empty str"),
    (lambda: rw.Run.from_arrays(None, ["d1"], [1.0]), TypeError, r"Run.from_arrays: query_ids must be .* got None"),
    (lambda: rw.Run.from_arrays([1.0], ["d1"], [1.0]), TypeError,
     r"query_ids must hold integers or strings, got float64: .*astype\(np.int64\)"),
    (lambda: rw.Qrels.from_arrays(["q1"], ["d1"], [[1]]), ValueError,
     r"Qrels.from_arrays: relevance must be a 1-D array of numbers, got shape \(1, 1\)"),
    (lambda: rw.Run.from_arrays(["q1"], ["d1"], 1.0), ValueError, r"scores must be a 1-D array .* shape \(\)"),
    (lambda: rw.Run.from_arrays(["q1"], ["d1"], [1.0], copy="no"), TypeError, r"copy must be True or False"),
    (lambda: rw.Run.from_arrays(["q1", "q1"], ["d1", "d2"], np.ma.masked_array([0.5, 0.2], mask=[False, True])),
     ValueError, r"Run.from_arrays: scores is a masked array with masked entries"),
    (lambda: rw.Qrels.from_arrays(np.ma.masked_array([1, 2], mask=[False, True]), [3, 4], [1, 0]), ValueError,
     r"Qrels.from_arrays: query_ids is a masked array with masked entries"),
    (lambda: rw.Run.from_arrays(["q1", "q1"], ["d1", "d2"], [[1.0], [2.0, 3.0]]), ValueError,
     r"Run.from_arrays: scores holds sequences of different lengths"),
    (lambda: rw.Run.from_arrays(["q1", "q1"], ["d1", "d2"], [10**400, 1]), ValueError,
     r"Run.from_arrays: scores holds .* beyond the range of float64"),
    (lambda: rw.Run.from_arrays(["q1"], ["d1"], [1.0], n_threads=0), ValueError, r"n_threads must be non-zero"),
    (lambda: rw.Run.from_arrays(["q1"], ["d1"], [1.0], n_threads=1.0), TypeError, r"n_threads must be an integer"),
    (lambda: rw.Run.from_pandas({"query_id": ["q1"]}), TypeError,
     r"Run.from_pandas: frame must be a pandas DataFrame, got dict"),
    (lambda: rw.Qrels.from_pandas(pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"],
                                                "relevance": pd.array([1, None], dtype="Int64")})),
     (TypeError, ValueError), r"column 'relevance'"),
    (lambda: rw.Qrels.from_dict({"q1": {"d1": 1}}).write(None), TypeError, r"path must be a str, bytes or "),
    (lambda: rw.trec_eval(*_objects(), complete="yes"), TypeError, r"complete must be True or False"),
    (lambda: rw.trec_eval(*_objects()).format(per_query=1), TypeError, r"per_query must be True or False"),
])
def test_constructor_and_option_types(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ----------------------------------------------------------------------------- trec_eval errors

@pytest.mark.parametrize("args", [(QRELS, "run"), ("qrels", RUN), ("run", "qrels")])
def test_trec_eval_takes_qrels_and_run_objects(args):
    qrels, run = _objects()
    objects = {"qrels": qrels, "run": run}
    with pytest.raises(TypeError):
        rw.trec_eval(*(objects.get(a, a) for a in args))


def test_unknown_measure_names_the_closest():
    with pytest.raises(ValueError, match="mapp.*'map'"):
        rw.trec_eval(*_objects(), ["mapp"])
    with pytest.raises(ValueError, match="ndcg_cutt"):
        rw.trec_eval(*_objects(), ["ndcg_cutt.10"])


@pytest.mark.parametrize("measure", ["relstring", "relstring.20", "binG", "G", "ndcg_rel", "Rndcg", "rbp",
                                     "rbp_resid", "dcg", "ideal_dcg"])
def test_unsupported_measures_say_so(measure):
    with pytest.raises(ValueError, match=rf"'{measure.split('.')[0]}'.*not supported"):
        rw.trec_eval(*_objects(), ["map", measure])


def test_all_trec_expands_to_the_supported_measures_only():
    res = rw.trec_eval(*_objects(), "all_trec")
    roots = []
    for name in res.names:
        root = next(r for r in sorted(ref.TABLE, key=len, reverse=True) if name == r or name.startswith(r + "_"))
        roots.append(root)
    assert list(dict.fromkeys(roots)) == [r for r in ref.TABLE if r not in ("runid", "num_q")]
    assert len(res.names) == len(ref.parse("all_trec")) - 2


@pytest.mark.parametrize("depth", [-1, -3, 1.5, True, "10"])
def test_bad_depth(depth):
    with pytest.raises((ValueError, TypeError), match="depth"):
        rw.trec_eval(*_objects(), "map", depth=depth)


@pytest.mark.parametrize("ties", ["random", "realistic", "", None])
def test_bad_ties(ties):
    with pytest.raises((ValueError, TypeError), match="ties"):
        rw.trec_eval(*_objects(), "map", ties=ties)


@pytest.mark.parametrize("measure", ["P.0", "P.5,5", "utility.1,2", "ndcg.a=1", "map.5"])
def test_bad_parameters(measure):
    with pytest.raises(ValueError):
        rw.trec_eval(*_objects(), measure)


# ----------------------------------------------------------------------------- TrecResults

def test_results_accessors():
    qrels, run = _objects(name="sys")
    res = rw.trec_eval(qrels, run, ["P.2,1", "map", "num_rel_ret", "gm_map"])
    assert res.names == ("num_rel_ret", "map", "gm_map", "P_1", "P_2")     # trec_eval's order
    assert list(res.query_ids) == ["10", "9", "q1"]                        # byte order; run-only ignored
    assert res.run_name == "sys"
    for name in res.names:
        assert res[name].dtype == np.float64 and res[name].shape == (3,)
    with pytest.raises(KeyError):
        res["P_5"]
    want = ref.evaluate(QRELS, RUN, ["P.2,1", "map", "num_rel_ret", "gm_map"])
    for name in res.names:
        assert list(res[name]) == pytest.approx([want.per_query[q][name] for q in want.query_ids], abs=1e-15)
    mean = res.mean()
    assert list(mean) == list(res.names)
    assert type(mean["num_rel_ret"]) is int and mean["num_rel_ret"] == want.summary["num_rel_ret"]
    assert mean["map"] == pytest.approx(float(np.mean(res["map"])), abs=1e-15)
    floor = [max(v, 1e-5) for v in res["gm_map"]]
    assert mean["gm_map"] == pytest.approx(math.exp(sum(map(math.log, floor)) / 3), rel=1e-12)
    assert mean["gm_map"] < mean["map"]
    frame = res.to_pandas()
    assert list(frame.columns) == list(res.names) and list(frame.index) == list(res.query_ids)
    np.testing.assert_array_equal(frame["P_1"].to_numpy(), res["P_1"])


def test_results_format_is_trec_eval_text():
    qrels = {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"x": 2}}
    run = {"q1": {"a": 0.2, "b": 0.9, "d": 0.5}, "q2": {"x": 1.0, "y": 1.0}}
    res = rw.trec_eval(*_objects(qrels, run, name="sysX"), ["official"])
    want = ref.evaluate(qrels, run, ["official"])
    per_query = [ref.format_line(s.name, q, want.per_query[q][s.name], s.root in ref.COUNTS)
                 for q in want.query_ids for s in want.specs if s.root not in ("runid", "num_q", "gm_map")]
    summary = ["runid                 \tall\tsysX", "num_q                 \tall\t2"] + \
        [ref.format_line(s.name, "all", want.summary[s.name], s.root in ref.COUNTS)
         for s in want.specs if s.root not in ("runid", "num_q")]
    assert res.format() == "\n".join(summary)
    assert res.format(per_query=True) == "\n".join(per_query + summary)
    # q1: b (nonrelevant), d (not judged), a (relevant), R = 2; q2: tie, "y" before "x" (relevant)
    assert "map                   \tq1\t0.1667" in res.format(per_query=True)
    assert "map                   \tq2\t0.5000" in res.format(per_query=True)
    assert "map                   \tall\t0.3333" in res.format()
    assert "num_ret               \tall\t5" in res.format()


def test_summary_of_no_queries():
    # No query in common: trec_eval 10.0 exits with an error; so does trec_eval() (but under -c).
    qrels, run = rw.Qrels.from_dict({"a": {"d": 1}}), rw.Run.from_dict({"b": {"d": 1.0}})
    with pytest.raises(ValueError, match="no query of the run has judgements: the qrels have 1 queries and the "
                                         "run 1, none in common"):
        rw.trec_eval(qrels, run, ["runid", "num_q", "map", "num_ret", "gm_map"])
    res = rw.trec_eval(qrels, run, ["runid", "num_q", "map", "num_ret", "gm_map"], complete=True)
    assert len(res.query_ids) == 1
    assert res.format() == ("runid                 \tall\trankwise\nnum_q                 \tall\t1\n"
                            "num_ret               \tall\t0\nmap                   \tall\t0.0000\n"
                            "gm_map                \tall\t0.0000")


@pytest.mark.parametrize("n_threads", [1, 2, -1, None])
def test_thread_counts_give_identical_results(n_threads):
    qrels, run = ref.random_case(random.Random(77), n_queries=10, max_docs=30)
    base = rw.trec_eval(*_objects(qrels, run), "all_trec", n_threads=1)
    res = rw.trec_eval(*_objects(qrels, run), "all_trec", n_threads=n_threads)
    for name in base.names:
        np.testing.assert_array_equal(base[name], res[name])


def test_stable_ties_follow_row_order_of_every_constructor(tmp_path):
    qrels = rw.Qrels.from_dict({"q": {"b": 1, "a": 0, "c": 0}})
    frame = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["c", "b", "a", "top"], "score": [1.0, 1.0, 1.0, 2.0]})
    _write(tmp_path / "r.txt", "".join(f"q Q0 {d} {i} {s} x\n" for i, (d, s) in
                                       enumerate(zip(frame["doc_id"], frame["score"], strict=True))))
    for run in (rw.Run.from_pandas(frame), rw.Run.read(tmp_path / "r.txt"),
                rw.Run.from_dict({"q": dict(zip(frame["doc_id"], frame["score"], strict=True))})):
        assert rw.trec_eval(qrels, run, "recip_rank", ties="stable")["recip_rank"][0] == 1 / 3   # top, c, b
        assert rw.trec_eval(qrels, run, "recip_rank", ties="trec")["recip_rank"][0] == 1 / 3     # top, c, b
    reversed_frame = pd.DataFrame({column: list(frame[column])[::-1] for column in frame.columns})
    run = rw.Run.from_pandas(reversed_frame)
    assert rw.trec_eval(qrels, run, "recip_rank", ties="stable")["recip_rank"][0] == 1 / 3       # top, a, b
    assert rw.trec_eval(qrels, run, "map", ties="stable")["map"][0] == 1 / 3


def test_frames_that_are_views_are_accepted():
    # a reversed or sliced DataFrame hands out strided (non-contiguous) columns
    frame = pd.DataFrame({"query_id": ["q", "q", "q", "q"], "doc_id": ["a", "b", "c", "d"],
                          "score": [1.0, 2.0, 3.0, 4.0], "relevance": [1, 0, 1, 0]})
    for view in (frame.iloc[::-1], frame.iloc[::2]):
        qrels = rw.Qrels.from_pandas(view)
        run = rw.Run.from_pandas(view)
        want = ref.evaluate(qrels.to_dict(), run.to_dict(), ["map", "ndcg"])
        got = rw.trec_eval(qrels, run, ["map", "ndcg"])
        assert got.mean() == pytest.approx(want.summary, abs=1e-15)


def test_inputs_are_not_modified():
    qrels, run = _objects()
    before = (qrels.to_dict(), run.to_dict())
    for ties in ("trec", "optimistic", "stable", "expected"):
        rw.trec_eval(qrels, run, ["map", "ndcg"], ties=ties, depth=2)
    assert (qrels.to_dict(), run.to_dict()) == before


# ----------------------------------------------------------------------------- command line

def _files(tmp_path, qrels=QRELS, run=RUN, name="clirun"):
    q, r = _objects(qrels, run, name=name)
    q.write(tmp_path / "q.txt")
    r.write(tmp_path / "r.txt")
    return str(tmp_path / "q.txt"), str(tmp_path / "r.txt")


def test_cli_trec_layout_equals_the_api(tmp_path, capsys):
    qf, rf = _files(tmp_path)
    assert main(["eval", qf, rf, "-m", "map", "-m", "P.1,2", "-q", "-c", "-l", "2", "-M", "2",
                 "--ties", "pessimistic"]) == 0
    out = capsys.readouterr().out
    res = rw.trec_eval(rw.Qrels.read(qf), rw.Run.read(rf), ["map", "P.1,2"], complete=True, relevance_level=2,
                       depth=2, ties="pessimistic")
    assert out == res.format(per_query=True) + "\n"
    assert "runid" not in out            # printed only when asked for, as in trec_eval
    assert main(["eval", qf, rf, "-m", "runid", "-m", "map"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "runid                 \tall\tclirun"


def test_cli_json(tmp_path, capsys):
    qf, rf = _files(tmp_path)
    assert main(["eval", qf, rf, "-m", "map", "-m", "num_ret", "-m", "ndcg_cut.2", "--format", "json", "-q"]) == 0
    report = json.loads(capsys.readouterr().out)
    want = ref.evaluate(QRELS, RUN, ["map", "num_ret", "ndcg_cut.2"])
    assert report["run"] == "clirun" and report["num_q"] == 3
    assert report["all"]["num_ret"] == want.summary["num_ret"]
    for name in ("map", "ndcg_cut_2"):
        assert report["all"][name] == pytest.approx(want.summary[name], abs=1e-15)
    assert set(report["per_query"]) == set(want.query_ids)
    for q in want.query_ids:
        for name in ("map", "num_ret", "ndcg_cut_2"):
            assert report["per_query"][q][name] == pytest.approx(want.per_query[q][name], abs=1e-15)
    assert main(["eval", qf, rf, "-m", "map", "--format", "json"]) == 0
    assert "per_query" not in json.loads(capsys.readouterr().out)


def test_cli_json_is_strict_json_with_infinite_values(tmp_path, capsys):
    """set_F with a negative beta is -inf in trec_eval; JSON has no infinity, so the value is
    the string "-inf" (what the CSV output prints), and the document is strict JSON."""
    qf, rf = _files(tmp_path)
    assert main(["eval", qf, rf, "-m", "set_F.-2", "-m", "map", "--format", "json", "-q"]) == 0
    out = capsys.readouterr().out
    report = json.loads(out, parse_constant=lambda name: pytest.fail(f"non-standard JSON constant {name}"))
    assert report["all"]["set_F_-2"] == "-inf" and float(report["all"]["set_F_-2"]) == -np.inf
    per_query = [values["set_F_-2"] for values in report["per_query"].values()]
    assert "-inf" in per_query and all(v == "-inf" or math.isfinite(v) for v in per_query)
    assert isinstance(report["all"]["map"], float)


def test_cli_csv(tmp_path, capsys):
    qf, rf = _files(tmp_path)
    assert main(["eval", qf, rf, "-m", "map", "-m", "P.1", "--format", "csv", "-q"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    want = ref.evaluate(QRELS, RUN, ["map", "P.1"])
    assert rows[0] == ["query_id", "map", "P_1"]
    assert [r[0] for r in rows[1:]] == want.query_ids + ["all"]
    for row in rows[1:-1]:
        assert float(row[1]) == pytest.approx(want.per_query[row[0]]["map"], abs=1e-15)
        assert float(row[2]) == pytest.approx(want.per_query[row[0]]["P_1"], abs=1e-15)
    assert float(rows[-1][1]) == pytest.approx(want.summary["map"], abs=1e-15)
    assert main(["eval", qf, rf, "-m", "map", "--format", "csv"]) == 0
    assert list(csv.reader(io.StringIO(capsys.readouterr().out)))[1][0] == "all"


_ODD_QRELS = {"q\u00e9": {"d1": 1, "d2": 0}, "10": {"d1": 2, "d3": 1}, "9": {"d4": 1}, "1": {"d5": 0}}
_ODD_RUN = {"q\u00e9": {"d1": 0.5, "d2": 0.7}, "10": {"d3": 1.0, "d9": 2.0}, "9": {"d4": 1.0}, "1": {"d5": 3.0}}


@pytest.mark.parametrize("options", [["-m", "set_F.-2", "-m", "map", "-m", "num_ret", "-m", "iprec_at_recall.0"],
                                     ["-m", "set_F.-2", "-m", "iprec_at_recall.0,0.5", "-M", "0"],
                                     ["-m", "runid", "-m", "num_q"], ["-m", "all_trec", "-c"]])
def test_per_query_outputs_are_laid_out_value_by_value(tmp_path, capsys, options):
    # Each layout is made a column at a time: the same text as formatting each value on its own
    # (trec_eval's lines, csv rows, json.dumps(indent=2)), with -inf, -nan, non-ASCII ids and
    # no per-query measure at all.
    qf, rf = _files(tmp_path, _ODD_QRELS, _ODD_RUN)
    measures = [options[i + 1] for i in range(0, len(options), 2) if options[i] == "-m"]
    depth = int(options[options.index("-M") + 1]) if "-M" in options else None
    res = rw.trec_eval(rw.Qrels.read(qf), rw.Run.read(rf), measures, depth=depth, complete="-c" in options)
    lines = [_line(spec, q, res._values[i, j]) for i, q in enumerate(res.query_ids)
             for j, spec in enumerate(res._specs) if spec.root not in _SUMMARY_ONLY]
    assert res.format(per_query=True, summary=False) == "\n".join(lines)
    assert main(["eval", qf, rf, *options, "-q", "--format", "json"]) == 0
    out = capsys.readouterr().out
    report = json.loads(out)
    assert out == json.dumps(report, indent=2) + "\n"
    assert list(report["per_query"]) == [str(q) for q in res.query_ids]
    for name in res.names:
        assert [str(values[name]) for values in report["per_query"].values()] == [
            str(v) if math.isfinite(v) else repr(v) for v in res[name].tolist()]
    assert main(["eval", qf, rf, *options, "-q", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[1:-1] == [[str(q), *(repr(float(res[name][i])) for name in res.names)]
                          for i, q in enumerate(res.query_ids)]


def _bundled(name):
    return resources.files("rankwise").joinpath("data", name).read_text(encoding="utf-8")


def test_cli_example_is_the_bundled_data(capsys):
    assert main(["eval", "--example", "-m", "all_trec", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    qrels, run, name = {}, {}, None
    for line in _bundled("example.qrels").splitlines():
        if line.strip() and not line.startswith("#"):
            q, _, d, rel = line.split()[:4]
            qrels.setdefault(q, {})[d] = int(rel)
    for line in _bundled("example.run").splitlines():
        if line.strip() and not line.startswith("#"):
            q, _, d, _, score, name = line.split()[:6]
            run.setdefault(q, {})[d] = float(score)
    want = ref.evaluate(qrels, run, ["all_trec"])
    assert lines[-len(want.names) - 2] == f"{'runid':<22}\tall\t{name}"
    values = {}
    for line in lines:
        measure, qid, value = line.split("\t")
        values[(measure.rstrip(), qid)] = value
    assert values[("num_q", "all")] == str(want.num_q) and want.num_q >= 5
    checked = 0
    for q in want.query_ids:
        for name_ in want.names:
            if name_ in ("gm_map", "gm_bpref"):
                continue
            got = float(values[(name_, q)])
            assert abs(got - want.per_query[q][name_]) <= 5.1e-5, (q, name_)
            checked += 1
    for name_ in want.names:
        assert abs(float(values[(name_, "all")]) - want.summary[name_]) <= 5.1e-5, name_
    assert checked > 500


def test_cli_errors(tmp_path, capsys):
    qf, rf = _files(tmp_path)
    assert main(["eval", qf, rf, "-m", "mapp"]) == 2
    assert "mapp" in capsys.readouterr().err
    assert main(["eval", qf, rf, "-m", "relstring"]) == 2
    assert "relstring" in capsys.readouterr().err
    assert main(["eval", qf]) == 2
    capsys.readouterr()
    assert main(["eval", qf, str(tmp_path / "missing.run")]) == 2
    assert "missing.run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["eval", qf, rf, "--ties", "random"])


# ----------------------------------------------------------------- runs coded with the qrels' docnos first

def _seeded_run(qrels: rw.Qrels, run: dict) -> rw.Run:
    """``run`` with its docnos interned after the qrels' own, as a reader seeded with the qrels' table makes it."""
    rows = [(q, d, v) for q, docs in run.items() for d, v in docs.items()]
    queries, query_codes = StringTable.from_strings(q for q, _, _ in rows)
    judged = qrels._columns.docs.to_numpy().tolist()
    docs, codes = StringTable.from_strings(judged + [d for _, d, _ in rows])
    scores = np.array([v for _, _, v in rows], dtype=np.float64)
    return rw.Run(TrecColumns(queries, query_codes, docs, codes[len(judged):], scores))


@pytest.mark.parametrize("seed", range(6))
def test_a_run_seeded_with_the_qrels_docnos_evaluates_as_the_plain_one(seed):
    qrels_dict, run_dict = ref.random_case(random.Random(seed), n_queries=9, max_docs=20)
    qrels, plain = rw.Qrels.from_dict(qrels_dict), rw.Run.from_dict(run_dict)
    seeded = _seeded_run(qrels, run_dict)
    assert _Join(qrels, seeded, False, 1).doc_map.shape == (0,)           # no lookup of the run's docnos
    assert _Join(qrels, plain, False, 1).doc_map.shape[0] == len(plain._columns.docs)
    for ties in ("trec", "optimistic", "pessimistic", "stable", "expected"):
        measures = ["map", "ndcg", "P.5", "recip_rank"] if ties == "expected" else ["all_trec"]
        for complete in (False, True):
            a = rw.trec_eval(qrels, plain, measures, ties=ties, complete=complete)
            b = rw.trec_eval(qrels, seeded, measures, ties=ties, complete=complete)
            assert a.format(per_query=True) == b.format(per_query=True), (ties, complete)


# --------------------------------------------------------------------------------------
# trec_eval_part and TrecResults.concat: queries split into parts, as an engine's partitions
# --------------------------------------------------------------------------------------

def _split(qrels, run, n_parts, as_ids):
    """Qrels and Run of each part: the queries hashed into n_parts, both sides together."""
    parts = []
    for p in range(n_parts):
        def rows(data, p=p):
            out = [(q, d, v) for q, docs in data.to_dict().items() for d, v in docs.items()
                   if hash(str(q)) % n_parts == p]
            return [np.array([r[i] for r in out], dtype=kind) for i, kind in enumerate(as_ids)]
        parts.append((rw.Qrels.from_arrays(*rows(qrels)), rw.Run.from_arrays(*rows(run), name=run.name)))
    return parts


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("ids", ["text", "integers"])
def test_parts_concatenated_equal_one_evaluation(complete, ids):
    from rankwise.trec.evaluation import trec_eval_part

    qrels, run = rw.trec.read_example()
    as_ids = (object, object, np.float64)
    if ids == "integers":  # ids of 1 to 3 digits, so that byte order differs from numeric order
        number = {q: 7 ** i % 997 for i, q in enumerate(sorted(set(qrels.query_ids) | set(run.query_ids)))}
        qrels = rw.Qrels.from_dict({number[q]: j for q, j in qrels.to_dict().items()})
        run = rw.Run.from_dict({number[q]: d for q, d in run.to_dict().items()}, name=run.name)
        as_ids = (np.int64, object, np.float64)
    whole = rw.trec_eval(qrels, run, ["all_trec"], complete=complete)
    for n_parts in (1, 3, 16):   # 16: parts without qrels, without run, without either
        parts = [trec_eval_part(q, r, ["all_trec"], complete=complete) for q, r in _split(qrels, run, n_parts, as_ids)]
        joined = rw.TrecResults.concat(parts[::-1])
        assert joined.format(per_query=True) == whole.format(per_query=True)
        assert joined.mean() == whole.mean()
        assert joined.query_ids.tolist() == whole.query_ids.tolist()


def test_concat_raises_trec_evals_errors():
    from rankwise.trec.evaluation import trec_eval_part

    qrels, run = rw.Qrels.from_dict({"q1": {"a": 1}}), rw.Run.from_dict({"q2": {"a": 1.0}})
    part = trec_eval_part(qrels, run, ["map"])
    assert part.n_queries == 0
    other = trec_eval_part(rw.Qrels.from_dict({"q3": {"a": 1}}), rw.Run.from_dict({"q4": {"a": 1.0}}), ["map"])
    with pytest.raises(ValueError, match="the qrels have 2 queries and the run 2, none in common"):
        rw.TrecResults.concat([part, other])
    with pytest.raises(ValueError, match="the parts differ in measures, run name or ties"):
        rw.TrecResults.concat([part, trec_eval_part(qrels, run, ["P.5"])])
    with pytest.raises(ValueError, match="nothing to evaluate: the qrels have no queries"):
        rw.TrecResults.concat([])
