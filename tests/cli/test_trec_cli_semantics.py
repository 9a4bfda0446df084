"""``rankwise eval`` and ``trec_eval()`` against trec_eval 10.0 on its command-line semantics.

tests/cli/data/trec_cli/cases.json holds trec_eval 10.0's own output (recorded by
scripts/make_trec_cli_cases.py; the binary is not needed here): a measure named twice
(the first -m that gives it parameters wins), -l 0 and -l 1.5 (atol), -M 0 and -M 2.5,
-n, -R / -T, queries in common or not, with and without -c, a document repeated below
the -M depth, and the trec_eval options rankwise refuses.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.cli import main

DATA = Path(__file__).resolve().parent / "data" / "trec_cli"
CASES = json.loads((DATA / "cases.json").read_text())["cases"]


def _case_id(case) -> str:
    return f"{case['run']}:{' '.join(case['args'])}"[:120]


def _main(*argv) -> int:
    """The exit status of one command, whether argparse or the command refuses it."""
    try:
        return main(list(argv))
    except SystemExit as exit_info:
        return exit_info.code


def _cli(case):
    return _main("eval", *case["args"], str(DATA / case["qrels"]), str(DATA / case["run"]))


def _lines(text: str, query: str = "all") -> dict:
    """``{measure: value text}`` of one query's lines in trec_eval's output."""
    return {name.strip(): value for name, q, value in (line.split("\t") for line in text.splitlines())
            if q == query}


@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] == "match"], ids=_case_id)
def test_prints_what_trec_eval_prints(case, capsys):
    assert _cli(case) == 0
    assert capsys.readouterr().out == case["stdout"]


@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] != "match"], ids=_case_id)
def test_errors_and_refusals_exit_2(case, capsys):
    assert _cli(case) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines()[-1].startswith("rankwise eval: error: ")


def _case(run: str, *args: str) -> dict:
    return next(c for c in CASES if c["run"] == run and c["args"][:len(args)] == list(args))


# --- A measure named twice: trec_eval keeps the parameters of the first -m that gives any.

@pytest.mark.parametrize("args, note", [
    (["-m", "P.1", "-m", "P.2"], "rankwise eval: note: -m P.2 ignored: P keeps the parameters of -m P.1 "
                                 "(trec_eval keeps the first -m with parameters)\n"),
    (["-m", "official", "-m", "P.1"], "rankwise eval: note: -m official: its P takes the parameters of -m P.1, "
                                      "not P's defaults (trec_eval keeps the first -m with parameters)\n"),
    (["-m", "P.5", "-m", "P"], "rankwise eval: note: -m P: P takes the parameters of -m P.5, not P's defaults "
                               "(trec_eval keeps the first -m with parameters)\n"),
    (["-m", "P.5", "-m", "P.5"], ""),
    (["-m", "P.2,1", "-m", "P.1,2"], ""),
])
def test_measure_named_twice_notes_what_is_ignored(args, note, capsys):
    case = _case("a.run", "-q", *args)
    assert _cli(case) == 0
    captured = capsys.readouterr()
    assert captured.out == case["stdout"]
    assert captured.err == note


def test_rankwise_underscore_names_count_as_parameters(capsys):
    # P_5 is rankwise's spelling of P.5 (trec_eval has only P.5): the same rule applies.
    assert main(["eval", "-m", "P_1", "-m", "P.2", str(DATA / "a.qrels"), str(DATA / "a.run")]) == 0
    captured = capsys.readouterr()
    assert captured.out == _case("a.run", "-q", "-m", "P.1", "-m", "P.2")["stdout"].split("\n", 3)[-1]
    assert "-m P.2 ignored: P keeps the parameters of -m P_1" in captured.err


def test_python_keeps_the_union():
    # trec_eval() computes every measure asked (documented); its values are trec_eval's.
    qrels, run = rw.Qrels.read(DATA / "a.qrels"), rw.Run.read(DATA / "a.run")
    res = rw.trec_eval(qrels, run, ["official", "P.1", "P.2"])
    assert res.names[-11:] == ("P_1", "P_2", "P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500",
                               "P_1000")
    expected = _lines(_case("a.run", "-q", "-m", "P.2,1")["stdout"])
    expected.update(_lines(_case("a.run", "-q", "-m", "official", "-m", "P.1")["stdout"]))
    printed = _lines(res.format())
    for name in ("P_1", "P_2", "map", "num_rel", "iprec_at_recall_0.50"):
        assert printed[name] == expected[name], name
    every = _lines(_case("a.run", "-q", "-R", "qrels")["stdout"])
    for name in ("P_5", "P_10", "P_1000"):
        assert printed[name] == every[name], name


# --- Options: -l and -M as trec_eval reads them (atol), 0 included.

@pytest.mark.parametrize("flags, same_as", [(["-l", "0.9"], ["-l", "0"]), (["-l", "1.5"], ["-R", "qrels"])])
def test_atol_reads_the_integer_part(flags, same_as):
    # What trec_eval itself does (the recorded outputs); rankwise eval matches both (above).
    assert _case("a.run", "-q", *flags)["stdout"] == _case("a.run", "-q", *same_as)["stdout"]


def _every(case) -> list:
    return [case["args"][i + 1] for i, a in enumerate(case["args"]) if a == "-m"]


@pytest.mark.parametrize("flags, kwargs", [(["-l", "0"], {"relevance_level": 0}),
                                           (["-l", "1.5"], {"relevance_level": 1}),
                                           (["-M", "0"], {"depth": 0}),
                                           (["-M", "0", "-l", "0"], {"depth": 0, "relevance_level": 0.0}),
                                           (["-M", "2.5"], {"depth": 2})])
def test_python_level_zero_and_depth_zero(flags, kwargs):
    case = _case("a.run", "-q", *flags)
    qrels, run = rw.Qrels.read(DATA / "a.qrels"), rw.Run.read(DATA / "a.run")
    res = rw.trec_eval(qrels, run, _every(case), **kwargs)
    # The union of the measures asked: compare the lines trec_eval printed.
    printed = {line for line in res.format(per_query=True).splitlines()}
    expected = case["stdout"].splitlines()
    assert set(expected) <= printed


def test_depth_zero_is_empty_rankings():
    # trec_eval -M 0: 0 / 0 retrieved is NaN where a recall point's cutoff is 0 (printed -nan).
    case = _case("a.run", "-q", "-M", "0")
    assert "iprec_at_recall_0.00  \tall\t  -nan" in case["stdout"]
    assert "11pt_avg              \tq1\t  -nan" in case["stdout"]
    qrels, run = rw.Qrels.read(DATA / "a.qrels"), rw.Run.read(DATA / "a.run")
    res = rw.trec_eval(qrels, run, ["iprec_at_recall", "utility.1,2,3,4", "num_rel", "num_ret"], depth=0)
    assert np.isnan(res["iprec_at_recall_0.00"]).all()
    assert np.signbit(res["iprec_at_recall_0.00"]).all()
    assert res["num_ret"].tolist() == [0, 0, 0]
    assert res["utility_1,2,3,4"].tolist() == (3 * res["num_rel"] - 4 * res["num_rel"]).tolist()


@pytest.mark.parametrize("level", [-1, -0.5, float("nan"), float("inf")])
def test_python_level_below_zero_is_refused(level):
    qrels, run = rw.Qrels.read(DATA / "a.qrels"), rw.Run.read(DATA / "a.run")
    with pytest.raises(ValueError, match=r"relevance_level must be a finite number >= 0 \(trec_eval's -l\)"):
        rw.trec_eval(qrels, run, ["map"], relevance_level=level)


def test_python_level_stays_a_float():
    # relevance_level=1.5 means labels >= 1.5 (here: 2), not trec_eval's atol reading (1).
    qrels, run = rw.Qrels.read(DATA / "a.qrels"), rw.Run.read(DATA / "a.run")
    at_two = rw.trec_eval(qrels, run, ["map", "num_rel"], relevance_level=2).mean()
    assert rw.trec_eval(qrels, run, ["map", "num_rel"], relevance_level=1.5).mean() == at_two


@pytest.mark.parametrize("args, message", [
    (["-l", "-1"], "argument -l: must be an integer from 0 to 2**53 (a fractional part is dropped, as "
                   "trec_eval's atol drops it: '1.5' is 1), got '-1': below 0, trec_eval 10.0 counts unjudged "
                   "documents as relevant where they are ranked but not in R (map exceeds 1)"),
    (["-l", "1e3"], "got '1e3'; trec_eval would read it as 1"),
    (["-l", "two"], "got 'two'; trec_eval would read it as 0"),
    (["-l", str(2**53 + 1)], "argument -l: must be an integer from 0 to 2**53"),
    (["-M", "-1"], "argument -M: must be an integer from 0 to 2**63 - 1 (a fractional part is dropped, as "
                   "trec_eval's atol drops it: '1.5' is 1), got '-1': trec_eval 10.0 crashes (segmentation "
                   "fault) on a negative -M"),
    (["-M", str(2**63)], "argument -M: must be an integer from 0 to 2**63 - 1"),
    (["-M", "0x10"], "got '0x10'; trec_eval would read it as 0"),
])
def test_level_and_depth_refused(args, message, capsys):
    assert _main("eval", "--example", *args) == 2
    assert message in capsys.readouterr().err


SUPPORTED = "rankwise eval supports trec_eval's -m, -q, -c, -l, -M, -J, -n, -R qrels and -T trec_results"


@pytest.mark.parametrize("args, message", [
    (["-N", "100"], "argument -N: not supported: trec_eval's -N (the number of documents in the collection"),
    (["-Z", "zscores.txt"], "argument -Z: not supported: trec_eval's -Z (Z scores"),
    (["-D", "1.q1"], "argument -D: not supported: trec_eval's -D (debug output"),
    (["-o"], "argument -o: not supported: trec_eval's -o (obsolete"),
    (["-v"], "argument -v: not supported: trec_eval's -v (its version; rankwise --version"),
    (["-R", "prefs"], "argument -R: format 'prefs' is not supported"),
    (["-R", "qrels_jg"], "argument -R: format 'qrels_jg' is not supported"),
    (["-R", "qrels_prefs"], "argument -R: format 'qrels_prefs' is not supported"),
    (["-T", "tsv"], "argument -T: format 'tsv' is not supported: only -T trec_results"),
])
def test_trec_eval_options_refused_naming_what_is_supported(args, message, capsys):
    assert main(["eval", "--example", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rankwise eval: error: {message}")
    assert err.rstrip().endswith(SUPPORTED)


def test_no_summary_only_in_trec_format(capsys):
    assert main(["eval", "--example", "-n", "--format", "json"]) == 2
    assert "argument -n: leaves out trec_eval's 'all' lines: only with --format trec" in capsys.readouterr().err
    assert main(["eval", "--example", "-n"]) == 0
    assert capsys.readouterr().out == ""  # as trec_eval -n without -q


def test_repeated_document_below_depth_is_refused_saying_why(capsys):
    case = _case("dup.run", "-m", "map", "-M", "5")
    assert case["returncode"] == 0 and case["stdout"] == "map                   \tall\t0.3333\n"
    assert _cli(case) == 2
    err = capsys.readouterr().err
    assert "has document 'd1' twice for query 'q1' (lines 1 and 14)" in err
    assert "with -M, trec_eval 10.0 rejects a repeated document only when both copies rank within the top 5; " \
           "rankwise rejects it at any depth: remove the repeated line" in err


# --- No query in common.

def test_no_query_in_common_cli(capsys):
    case = _case("none.run", "-q", "-m", "official")
    assert case["returncode"] == 4  # trec_eval: "result qid 'q1' not found in qrels"
    assert _cli(case) == 2
    assert capsys.readouterr().err == (
        "rankwise eval: error: no query of the run has judgements: the qrels have 3 queries and the run 1, none "
        "in common (trec_eval exits with an error too); -c evaluates the qrels' queries, those the run lacks "
        "scoring 0\n")


def test_no_query_in_common_python():
    qrels, run = rw.Qrels.read(DATA / "a.qrels"), rw.Run.read(DATA / "none.run")
    with pytest.raises(ValueError, match=r"^no query of the run has judgements: the qrels have 3 queries and the "
                                         r"run 1, none in common \(trec_eval exits with an error\); "
                                         r"complete=True evaluates"):
        rw.trec_eval(qrels, run, ["map"])
    # With complete=True: trec_eval -c's zeros (the recorded case).
    case = _case("none.run", "-q", "-c")
    res = rw.trec_eval(qrels, run, _every(case), complete=True)
    assert set(case["stdout"].splitlines()) <= set(res.format(per_query=True).splitlines())


@pytest.mark.parametrize("qrels, run, which", [
    ({"q1": {"d1": 1}}, {}, "run has"), ({}, {"q1": {"d1": 1.0}}, "qrels have"), ({}, {}, "qrels have")])
@pytest.mark.parametrize("complete", [False, True])
def test_nothing_to_evaluate(qrels, run, which, complete):
    with pytest.raises(ValueError, match=f"^nothing to evaluate: the {which} no queries$"):
        rw.trec_eval(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), ["map"], complete=complete)


# --- Every name a result exposes holds computed values.

def test_summary_labels_have_no_per_query_values():
    qrels, run = rw.Qrels.read(DATA / "a.qrels"), rw.Run.read(DATA / "a.run")
    res = rw.trec_eval(qrels, run, ["official"])
    with pytest.raises(KeyError, match=r"'num_q' has only a summary, no per-query values .*len\(res.query_ids\)"):
        res["num_q"]
    with pytest.raises(KeyError, match=r"'runid' has only a summary, no per-query values .*res.run_name"):
        res["runid"]
    assert "num_q" not in res and "runid" not in res and "map" in res and "P_5" in res
    assert list(res) == list(res.names)
    assert "num_q" not in res.names and "runid" not in res.mean()
    pd = pytest.importorskip("pandas")
    frame = res.to_pandas()
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == list(res.names)
    text = res.format(per_query=True)
    assert "num_q                 \tall\t3" in text and "runid                 \tall\tsys" in text
    assert "\tq1\t" in text and not any(line.startswith(("num_q", "runid")) and "\tall\t" not in line
                                        for line in text.splitlines())


def test_results_names_hold_computed_values():
    # rankwise's Results: every name (and alias) reads a column the kernel computed.
    y_true, y_score = [[0, 1, 2], [1, 0, 0]], [[0.9, 0.8, 0.1], [0.5, 0.5, 0.2]]
    metrics = ["MRR", "P@2", "nDCG@3", "AP", "R@1"]
    res = rw.evaluate(y_true, y_score, metrics)
    assert list(res) == metrics and "RR" in res and "num_q" not in res
    for name in [*metrics, "RR"]:
        alone = rw.evaluate(y_true, y_score, [name])
        assert res[name].tolist() == alone[name].tolist(), name
    with pytest.raises(KeyError, match="'num_q' was not computed"):
        res["num_q"]
