"""Parameterised trec_eval measures: trec_eval 10.0's bytes, or a ValueError that says why.

tests/trec/data/trec_params/cases.json holds trec_eval 10.0's own output (recorded by
scripts/make_trec_param_cases.py) for every parameterised measure under a battery of odd
parameters. Cases where trec_eval's behaviour is undefined (NaN, infinities, overflow)
were never run through it; rankwise must refuse them (UNDEFINED below).
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.cli import main

DATA = Path(__file__).resolve().parent / "data" / "trec_params"
CASES = json.loads((DATA / "cases.json").read_text())["cases"]
with np.errstate(invalid="ignore"):
    # x86's default NaN (from 0/0, inf - inf) has its sign bit set, and C prints it "-nan".
    _DEFAULT_NAN_IS_NEGATIVE = bool(np.signbit(np.array([np.inf]) - np.array([np.inf]))[0])


def _case_id(case) -> str:
    return f"{case['qrels']} {' '.join(case['args'][1:])}"


def _measures(case) -> list[str]:
    args = case["args"]
    return [args[i + 1] for i, a in enumerate(args) if a == "-m"]


def _options(case) -> dict:
    args, options = case["args"], {}
    for i, arg in enumerate(args):
        if arg == "-c":
            options["complete"] = True
        elif arg == "-M":
            options["depth"] = int(args[i + 1])
        elif arg == "-l":
            options["relevance_level"] = int(args[i + 1])
    return options


def _inputs(case):
    return rw.Qrels.read(DATA / case["qrels"]), rw.Run.read(DATA / case["run"])


@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] == "match"], ids=_case_id)
def test_trec_eval_bytes(case):
    res = rw.trec_eval(*_inputs(case), _measures(case), **_options(case))
    got = res.format(per_query=True) + "\n"
    if "nan" in case["stdout"] and not _DEFAULT_NAN_IS_NEGATIVE:
        pytest.skip("this machine's default NaN is positive; trec_eval's recording (x86) printed -nan")
    assert got == case["stdout"], f"\n{got}\n!=\n{case['stdout']}"


@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] != "match"], ids=_case_id)
def test_refused_with_the_measure_named(case):
    qrels, run = _inputs(case)
    measure = _measures(case)[0]
    with pytest.raises(ValueError, match=f"trec_eval measure {measure!r}".replace(".", r"\.")
                       .replace("(", r"\(").replace("+", r"\+")):
        rw.trec_eval(qrels, run, [measure], **_options(case))


def test_cases_cover_every_parameterised_measure_and_outcome():
    measures = {m.split(".")[0] for c in CASES for m in _measures(c)}
    assert measures == {"P", "recall", "ndcg_cut", "map_cut", "relative_P", "success", "iprec_at_recall",
                        "Rprec_mult", "11pt_avg", "utility", "set_F", "ndcg"}
    outcomes = {(c["expect"], c["returncode"] != 0) for c in CASES}
    assert outcomes == {("match", False), ("error", True), ("refuse", False)}
    flags = {a for c in CASES for a in c["args"] if a in ("-c", "-M", "-l")}
    assert flags == {"-c", "-M", "-l"}
    assert sum(c["expect"] == "match" for c in CASES) > 500
    printed = "".join(c["stdout"] for c in CASES if c["expect"] == "match")
    for text in ("  -inf", "  -nan", "-0.0000", "map_cut_9223372036854775807", "ndcg_-1=5", "P_1"):
        assert text in printed


def test_cli_matches_and_refuses(capsys):
    match = next(c for c in CASES if c["expect"] == "match" and "-c" in c["args"])
    assert main(["eval", *match["args"], str(DATA / match["qrels"]), str(DATA / match["run"])]) == 0
    assert capsys.readouterr().out == match["stdout"]
    refused = next(c for c in CASES if c["expect"] == "refuse")
    code = main(["eval", *refused["args"], str(DATA / refused["qrels"]), str(DATA / refused["run"])])
    assert code != 0
    assert "trec_eval measure" in capsys.readouterr().err


# --- Parameters on which trec_eval's behaviour is undefined: refused, never run through it.

UNDEFINED = {
    # atol overflows (undefined behaviour in C)
    "P.9223372036854775808": "cutoff",
    "recall.99999999999999999999": "cutoff",
    "ndcg_cut.-99999999999999999999": "cutoff",
    # NaN and infinities reach lround, (long) or the arithmetic
    "iprec_at_recall.nan": "recall fraction",
    "iprec_at_recall.inf": "recall fraction",
    "iprec_at_recall.1e300": "recall fraction",
    "iprec_at_recall.-1e300": "recall fraction",
    "Rprec_mult.1e300": "multiplier",
    "Rprec_mult.nan": "multiplier",
    "11pt_avg.nan": "recall fraction",
    "11pt_avg.0.5,1e300": "recall fraction",
    "11pt_avg.-inf": "recall fraction",
    "utility.nan,0,0,0": "coefficient",
    "utility.1,inf,0,0": "coefficient",
    "utility.1,1e400,0,0": "coefficient",
    "set_F.nan": "parameter",
    "set_F.inf": "parameter",
    "set_F.-1e999": "parameter",
    "ndcg.1=nan": "gain",
    "ndcg.1=inf": "gain",
    "ndcg.2=1e309": "gain",
    "ndcg.99999999999999999999=1": "gain level",
    "ndcg.-9223372036854775809=1": "gain level",
}


@pytest.mark.parametrize("measure", list(UNDEFINED))
def test_undefined_in_trec_eval_is_refused(measure):
    qrels, run = rw.Qrels.read(DATA / "a.qrels"), rw.Run.read(DATA / "a.run")
    what = UNDEFINED[measure]
    with pytest.raises(ValueError, match=rf"trec_eval measure '{measure}': {what} .* (is out of range|is not)"):
        rw.trec_eval(qrels, run, [measure])


# --- The reproducers, one by one.

def _small():
    qrels = rw.Qrels.from_dict({"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"d": 2}})
    run = rw.Run.from_dict({"q1": {"a": 0.9, "b": 0.8, "c": 0.1, "x": 0.5}, "q2": {"d": 1.0, "y": 2.0}})
    return qrels, run


def test_negative_recall_fraction_does_not_crash():
    # It used to index the kernel's buffer at lround(-10**7 * R): SIGSEGV.
    code = textwrap.dedent("""
        import rankwise as rw
        qrels = rw.Qrels.from_dict({"q1": {"a": 1, "b": 0, "c": 1}})
        run = rw.Run.from_dict({"q1": {"a": 0.9, "b": 0.8, "c": 0.1}})
        try:
            rw.trec_eval(qrels, run, ["iprec_at_recall.-10000000"])
        except ValueError as error:
            print("ValueError:", error)
        print(rw.trec_eval(qrels, run, ["iprec_at_recall.-9999.99,-5,0"]).mean())
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("ValueError: trec_eval measure 'iprec_at_recall.-10000000': recall fraction "
                               "'-10000000' is out of range; recall fractions are decimal numbers from -9999.99 "
                               "to 9999.99")
    # Below 0, trec_eval's lround(f R) never matches a relevant count: the best precision anywhere.
    assert lines[1] == ("{'iprec_at_recall_-9999.99': 1.0, 'iprec_at_recall_-5.00': 1.0, "
                        "'iprec_at_recall_0.00': 1.0}")


def test_negative_recall_fraction_in_the_cli(tmp_path):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("q1 0 a 1\n")
    run.write_text("q1 Q0 a 1 1 r\n")
    done = subprocess.run([sys.executable, "-c", "import sys; from rankwise.cli import main; sys.exit(main())",
                           "eval", "-m", "iprec_at_recall.-10000000", str(qrels), str(run)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.startswith("rankwise eval: error: argument -m: trec_eval measure 'iprec_at_recall.-10000000': recall "
                                  "fraction '-10000000' is out of range")


@pytest.mark.parametrize("measure, read", [("P.inf", 0), ("P.nan", 0), ("P.1e3", 1), ("map_cut.0x10", 0),
                                           ("P.", None), ("P.1_000", 1)])
def test_cutoffs_are_integers(measure, read):
    with pytest.raises(ValueError) as error:
        rw.trec_eval(*_small(), [measure])
    message = str(error.value)
    assert f"trec_eval measure {measure!r}" in message
    if read is not None:
        assert "integers from 1 to 2**63 - 1" in message
        assert message.endswith(f"trec_eval would read it as {read}")


@pytest.mark.parametrize("measure", ["P.0", "P.-3", "success.9223372036854775808", "recall.5,5"])
def test_cutoffs_out_of_range_or_repeated(measure):
    with pytest.raises(ValueError, match=rf"trec_eval measure '{measure}': (cutoff .* out of range; cutoffs are "
                                         r"integers from 1 to 2\*\*63 - 1|duplicate cutoffs)"):
        rw.trec_eval(*_small(), [measure])


def test_huge_cutoffs_keep_their_name_and_value():
    res = rw.trec_eval(*_small(), ["map_cut.9223372036854775807", "P.9223372036854775807", "success.4611686018427387904",
                                   "ndcg_cut.9223372036854775807", "relative_P.9223372036854775807",
                                   "recall.9223372036854775807"])
    assert res.names == ("P_9223372036854775807", "recall_9223372036854775807", "ndcg_cut_9223372036854775807",
                         "map_cut_9223372036854775807", "relative_P_9223372036854775807",
                         "success_4611686018427387904")
    mean = res.mean()
    assert mean["map_cut_9223372036854775807"] == rw.trec_eval(*_small(), ["map"]).mean()["map"]
    assert mean["P_9223372036854775807"] == (2 / 2**63 + 1 / 2**63) / 2
    assert mean["success_4611686018427387904"] == 1.0
    assert mean["recall_9223372036854775807"] == 1.0
    # and under the expectation over ties, which takes another path through the kernel
    expected = rw.trec_eval(*_small(), ["success.9223372036854775807", "P.9223372036854775807"], ties="expected")
    assert expected.mean()["success_9223372036854775807"] == 1.0


def test_cutoffs_trec_eval_would_misorder():
    with pytest.raises(ValueError, match=r"'P\.1,4294967296': cutoffs 1 and 4294967296 are 2\*\*31 or more apart"):
        rw.trec_eval(*_small(), ["P.1,4294967296"])
    # given apart, both are computed
    assert rw.trec_eval(*_small(), ["P.1", "P.4294967296"]).names == ("P_1", "P_4294967296")


def test_utility_coefficients():
    with pytest.raises(ValueError, match=r"'utility\.a,b,c,d': coefficient 'a' is not a decimal number; utility "
                                         r"takes exactly 4 coefficients, finite decimal numbers; trec_eval would "
                                         r"read it as 0\.0"):
        rw.trec_eval(*_small(), ["utility.a,b,c,d"])
    with pytest.raises(ValueError, match=r"'utility\.1,2,3': utility takes exactly 4 coefficients.*got 3"):
        rw.trec_eval(*_small(), ["utility.1,2,3"])


def test_set_f_prints_infinities_as_c_does():
    res = rw.trec_eval(*_small(), ["set_F.-2"])
    lines = res.format(per_query=True).splitlines()
    assert lines[0] == "set_F_-2              \tq1\t  -inf"
    assert lines[-1] == "set_F_-2              \tall\t  -inf"


@pytest.mark.parametrize("value, text", [(math.inf, "   inf"), (-math.inf, "  -inf"), (0.5, "0.5000"),
                                         (-0.0, "-0.0000"), (1e22, "10000000000000000000000.0000"),
                                         (float("nan"), "   nan"), (-float("nan"), "  -nan"), (5e-5, "0.0001"),
                                         (-5e-5, "-0.0001"), (2.5e-5, "0.0000"), (-2.5e-5, "-0.0000")])
def test_values_print_as_c_printf(value, text):
    from rankwise.trec.evaluation import _c_float

    assert _c_float(value) == text


def test_values_print_as_libc_printf():
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if name is None or sys.platform != "linux":
        pytest.skip("glibc's snprintf is the reference (trec_eval's platform)")
    libc = ctypes.CDLL(name)
    from rankwise.trec.evaluation import _c_float

    rng = np.random.default_rng(5)
    values = np.concatenate([rng.random(200), -rng.random(200), rng.standard_normal(200) * 1e6,
                             10.0 ** rng.uniform(-8, 300, 200), np.round(rng.random(200), 5) + 5e-5,
                             [math.inf, -math.inf, np.nan, -np.nan, 0.0, -0.0, 1e308, 5e-324, 0.00005, 0.00015]])
    buffer = ctypes.create_string_buffer(400)
    for value in values:
        libc.snprintf(buffer, 400, b"%6.4f", ctypes.c_double(value))
        assert _c_float(float(value)) == buffer.value.decode(), value


def test_ndcg_gain_levels_are_sparse():
    # Used to allocate a table of 10**11 gains (745 GiB); an invalid level is refused.
    with pytest.raises(ValueError, match=r"'ndcg\.1e11=1': gain level '1e11' is not an integer.*trec_eval silently "
                                         r"ignores a pair whose level is not an integer"):
        rw.trec_eval(*_small(), ["ndcg.1e11=1"])
    qrels = rw.Qrels.from_dict({"q1": {"a": 9223372036854774784.0, "b": 1, "c": 0}})
    run = rw.Run.from_dict({"q1": {"a": 0.1, "b": 0.9, "c": 0.5}})
    res = rw.trec_eval(qrels, run, ["ndcg.9223372036854774784=2,1=1,-9223372036854775808=7"])
    ideal = 2 + 1 / math.log2(3)
    assert res.mean()["ndcg_9223372036854774784=2,1=1,-9223372036854775808=7"] == pytest.approx(
        (1 + 2 / math.log2(4)) / ideal)


def test_ndcg_levels_refused():
    for measure, message in [("ndcg.1=3,1=5", r"level 1 has two gains"),
                             ("ndcg.x=3", r"gain level 'x' is not an integer"),
                             ("ndcg.1=3,", r"pair '' is not 'level=gain'")]:
        with pytest.raises(ValueError, match=rf"trec_eval measure '{measure}': {message}"):
            rw.trec_eval(*_small(), [measure])


def test_two_parameters_printing_one_name():
    with pytest.raises(ValueError, match=r"0\.101 and 0\.102 both print as 'iprec_at_recall_0\.10'"):
        rw.trec_eval(*_small(), ["iprec_at_recall.0.101,0.102"])
    with pytest.raises(ValueError, match=r"'Rprec_mult\.0\.101' and 'Rprec_mult\.0\.104' both print "
                                         r"'Rprec_mult_0\.10'"):
        rw.trec_eval(*_small(), ["Rprec_mult.0.101", "Rprec_mult.0.104"])
    # the same measure asked twice is one measure
    assert rw.trec_eval(*_small(), ["P.5", "P_5", "P.5.5"]).names == ("P_5",)


@pytest.mark.parametrize("name, equivalent", [
    ("ndcg@10", "ndcg_cut.10"), ("nDCG@5", "ndcg_cut.5"), ("P@10", "P.10"), ("R@100", "recall.100"),
    ("AP", "map"), ("MAP@20", "map_cut.20"), ("AP@7", "map_cut.7"), ("RR", "recip_rank"), ("MRR", "recip_rank"),
    ("Hits@10", "success.10"), ("Success@1", "success.1"), ("precision@3", "P.3"), ("recall@4", "recall.4")])
def test_rankwise_names_suggest_their_trec_eval_equivalent(name, equivalent):
    with pytest.raises(ValueError, match=rf"^unknown trec_eval measure '{name}'; did you mean '{equivalent}'\? "
                                         r"\(trec_eval's name for rankwise's .*\)$"):
        rw.trec_eval(*_small(), [name])


@pytest.mark.parametrize("name", ["ERR", "ERR@20", "RBP(p=0.9)", "F1@10", "DCG@10", "RR@10",
                                  "nDCG(gain=exponential)@10"])
def test_rankwise_names_without_equivalent(name):
    with pytest.raises(ValueError, match=r"has no trec_eval equivalent; compute it with rankwise\.evaluate"):
        rw.trec_eval(*_small(), [name])


def test_cli_suggests_the_equivalent(capsys, tmp_path):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("q1 0 a 1\n")
    run.write_text("q1 Q0 a 1 1 r\n")
    assert main(["eval", "-m", "ndcg@10", str(qrels), str(run)]) == 2
    assert "did you mean 'ndcg_cut.10'? (trec_eval's name for rankwise's nDCG@10)" in capsys.readouterr().err


@pytest.mark.parametrize("depth, error", [(2**63, ValueError), (-1, ValueError),
                                          (np.uint64(2**64 - 1), ValueError), (2.0, TypeError), (True, TypeError),
                                          ("5", TypeError)])
def test_depth_is_checked(depth, error):
    with pytest.raises(error, match=r"depth must be an integer"):
        rw.trec_eval(*_small(), ["P.5"], depth=depth)


def test_huge_depth_is_no_depth():
    full = rw.trec_eval(*_small(), ["all_trec"]).format(per_query=True)
    assert rw.trec_eval(*_small(), ["all_trec"], depth=2**63 - 1).format(per_query=True) == full
    assert rw.trec_eval(*_small(), ["all_trec"], depth=np.int64(2**62)).format(per_query=True) == full


def test_measures_must_be_names():
    with pytest.raises(TypeError, match="measures must be a trec_eval measure name or a list of them, got int"):
        rw.trec_eval(*_small(), 5)


def test_eleven_point_keeps_trec_eval_order():
    # trec_eval walks 11pt_avg's points from the last, as given: "1,0.5" is not "0.5,1".
    qrels = rw.Qrels.from_dict({"q": {"a": 1, "b": 1, "c": 0}})
    run = rw.Run.from_dict({"q": {"a": 0.9, "c": 0.8, "x": 0.7, "b": 0.6}})
    res = rw.trec_eval(qrels, run, ["11pt_avg.0.5,1", "11pt_avg.1,0.5", "iprec_at_recall.0,0.5,1"]).mean()
    assert (res["iprec_at_recall_0.00"], res["iprec_at_recall_0.50"], res["iprec_at_recall_1.00"]) == (1, 1, 0.5)
    # From the end of "0.5,1": the point 1 (2 relevant), then 0.5 (1 relevant): each its own value ...
    assert res["11pt_avg_0.5,1"] == (0.5 + 1.0) / 2
    # ... from the end of "1,0.5": 0.5 first; 1 (2 > 1) is then never met: the best precision, 1
    assert res["11pt_avg_1,0.5"] == 1.0


def test_bytes_are_not_measure_names():
    with pytest.raises(TypeError, match="measures must be a trec_eval measure name or a list of them, got bytes"):
        rw.trec_eval(*_small(), b"map")


def test_summary_is_trec_eval_sum_left_to_right():
    # trec_eval adds each query's value to 0.0 in query order, then divides; NumPy's mean sums
    # pairwise, which differs in the last bits once there are more than 8 queries.
    import functools
    import operator

    rng = np.random.default_rng(3)
    qrels = rw.Qrels.from_dict({f"q{i:02d}": {f"d{j}": int(rng.integers(0, 3)) for j in range(12)}
                                for i in range(40)})
    run = rw.Run.from_dict({f"q{i:02d}": {f"d{j}": float(rng.random()) for j in range(15)} for i in range(40)})
    res = rw.trec_eval(qrels, run, ["utility.0.1,0.7,0.3,0.01", "map", "gm_map", "ndcg.1=0.3,2=1.7"])
    mean = res.mean()
    for name in ("utility_0.1,0.7,0.3,0.01", "map", "ndcg_1=0.3,2=1.7"):
        assert mean[name] == functools.reduce(operator.add, res[name].tolist(), 0.0) / 40, name
    logs = [math.log(max(v, 1e-5)) for v in res["gm_map"].tolist()]
    assert mean["gm_map"] == math.exp(functools.reduce(operator.add, logs, 0.0) / 40)
    assert any(mean[name] != float(np.mean(res[name])) for name in ("utility_0.1,0.7,0.3,0.01", "map"))


@pytest.mark.parametrize("gains", [
    "1=3,2=9,9007199254740993=4,9223372036854775807=5",                 # few levels: a pass per level
    ",".join(f"{level}={(level * 7) % 11 - 2}" for level in range(0, 40, 2)) + ",9223372036854775807=5"])
def test_custom_gains_match_the_model(gains):
    from rankwise.testing import trec as ref

    rng = np.random.default_rng(8)
    labels = [0, 1, 2, 3, 4, 6, 7, 30, 2.0**63, 9007199254740992.0, -1]
    qrels = {f"q{i}": {f"d{j}": labels[int(rng.integers(0, len(labels)))] for j in range(10)} for i in range(6)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 5)) for j in range(0, 14, 2)} for i in range(6)}
    for config in (dict(), dict(complete=True)):
        got = rw.trec_eval(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), ["ndcg." + gains], **config)
        want = ref.evaluate(qrels, run, ["ndcg." + gains], **config)
        name = "ndcg_" + gains
        np.testing.assert_allclose(got[name], [want.per_query[q][name] for q in want.query_ids], rtol=1e-12)
