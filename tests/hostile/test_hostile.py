"""Hostile inputs across the public API and the CLI, each case isolated in its own process.

Every case runs in a child process (forked from a worker that imported rankwise once,
see ``_hostile_runner``), so a crash, an abort or a hang fails that case alone, with the
signal in its message. A case expects an exception of exactly one type whose message
names the argument, or a result (checked against a simple reference where the input is
extreme but valid); no case may emit a warning.

``test_generated`` covers every public function and method, parameter by parameter,
with value classes generated from each parameter's kind (``_hostile_cases``). The named
tests below are the cases of issue 21, one test each.
"""
import os
import sys

import pytest
from _hostile_cases import TE, VE, either, generated_cases
from _hostile_runner import AnyOf, Case, Ok, Raises, assert_case, run_all

GENERATED = generated_cases()


def _only_a_type_error(expect) -> bool:
    if isinstance(expect, Raises):
        return expect.exc is TypeError
    return isinstance(expect, AnyOf) and all(_only_a_type_error(o) for o in expect.options)


# RANKWISE_HOSTILE_KERNELS_ONLY=1 (.ci/sanitize, where every case costs twice as much under
# AddressSanitizer): only the cases that can reach a kernel. Left out: those whose one
# allowed outcome is a TypeError (a third), since types are checked in Python before any
# work, and a kernel's typed memoryview refuses a buffer of another type at the call, before
# its code runs. Every case, those included, runs in the README's test command.
if os.environ.get("RANKWISE_HOSTILE_KERNELS_ONLY") == "1":
    GENERATED = [(case_id, case) for case_id, case in GENERATED if not _only_a_type_error(case.expect)]


@pytest.fixture(scope="session")
def generated_outcomes(request):
    """The outcomes of every selected generated case, run up front by parallel workers."""
    selected = {item.callspec.id: item.callspec.params["case"] for item in request.session.items
                if item.originalname == "test_generated"}
    ids = list(selected)
    return dict(zip(ids, run_all([selected[i] for i in ids]), strict=True))


@pytest.mark.parametrize("case", [pytest.param(case, id=case_id) for case_id, case in GENERATED])
def test_generated(case, generated_outcomes, request):
    assert_case(case, generated_outcomes[request.node.callspec.id])


def _same_measure(measure: str, reference: str) -> Ok:
    return Ok(f"same(means(result), means(rw.trec_eval(QRELS, RUN, [{reference!r}])))")


def _trec(measure: str) -> str:
    return f"rw.trec_eval(QRELS, RUN, [{measure!r}])"


# --------------------------------------------------------------------------------------
# trec_eval measure parameters
# --------------------------------------------------------------------------------------

def test_iprec_at_recall_far_below_zero_does_not_crash():
    # trec_eval 10.0: lround(-1e7 * R) is below every cutoff, so the value is the one at recall 0.
    measure = "iprec_at_recall.-10000000"
    assert_case(Case(_trec(measure), either(_same_measure(measure, "iprec_at_recall.0"), VE(measure))))


def test_iprec_at_recall_negative_is_the_value_at_recall_zero():
    assert_case(Case(_trec("iprec_at_recall.-5"), _same_measure("iprec_at_recall.-5", "iprec_at_recall.0")))


@pytest.mark.parametrize("measure", ["iprec_at_recall.nan", "iprec_at_recall.1e300", "P.inf", "P.nan",
                                     "utility.a,b,c,d"])
def test_undefined_measure_parameters_are_refused(measure):
    assert_case(Case(_trec(measure), VE(measure)))


def test_11pt_avg_negative_points():
    measure = "11pt_avg.-1,-2"
    assert_case(Case(_trec(measure), either(_same_measure(measure, "iprec_at_recall.0"), VE(measure))))


def test_ndcg_gain_level_allocates_nothing():
    # A gain for level 1e11 (or 10**11) that no judgement has: trec_eval ignores it (1e11 is not
    # an integer) or finds no document at that level; either way the value is plain ndcg's.
    # 256 MiB of address space: a table sized by the level would need 745 GiB.
    for measure in ("ndcg.1e11=1", "ndcg.100000000000=1"):
        assert_case(Case(_trec(measure), either(_same_measure(measure, "ndcg"), VE(measure)), memory=256 << 20))


# --------------------------------------------------------------------------------------
# Ranks and RankBuilder
# --------------------------------------------------------------------------------------

def test_ranks_that_overflow_int64_are_refused():
    assert_case(Case("rw.Ranks([2**62], [2**62], [2**63 - 1]).pessimistic",
                     VE(("greater", "equal", "n_candidates"))))


def test_huge_n_candidates_give_the_closed_forms():
    # 2**52 is the most candidates a query can have (every rank then exact in float64).
    c = 2**52
    check = (f"c = float({c}); h = math.log(c) + 0.5772156649015329 + 1 / (2 * c); "
             "close(result['E[MR]'], (c + 1) / 2); close(result['E[MRR]'], h / c); "
             "close(result['E[Hits@10]'], 10 / c); close(result['V[MR]'], (c * c - 1) / 12 / 2); "
             "close(result['AMRI'], (1.5 - (c + 1) / 2) / (1 - (c + 1) / 2)); finite(result)")
    assert_case(Case(f"rw.rank_metrics(rw.Ranks.from_ranks([1, 2], n_candidates=[{c}, {c}]), "
                     "['E[MR]', 'E[MRR]', 'E[Hits@10]', 'V[MR]', 'AMRI', 'zMRR', 'AMRR'])", Ok(check)))


def test_rank_builder_fractional_start_is_refused():
    assert_case(Case("rw.RankBuilder(POS, true_index=[0, 4]).update(NEG, start=1.9)", TE("start")))


def test_rank_builder_negative_start_is_refused():
    assert_case(Case("rw.RankBuilder(POS, true_index=[0, 4]).update(NEG, start=-5)", VE("start")))


@pytest.mark.parametrize("call, expect", [
    ("rw.Ranks.from_ranks(np.array([2**63], np.uint64))", VE("ranks")),
    ("rw.Ranks.from_ranks(np.array([1, 2], np.uint64))", Ok("assert result.optimistic.tolist() == [1, 2]")),
    ("rw.Ranks.from_ranks(np.array([2**52, 1], np.uint64), n_candidates=np.array([2**52, 1], np.uint64))",
     Ok("assert result.optimistic.tolist() == [2**52, 1] and result.n_candidates.tolist() == [2**52, 1]")),
    ("rw.Ranks.from_ranks(np.array([2**52 + 1], np.uint64))", VE("ranks")),
    ("rw.Ranks(np.array([2**52 - 1], np.uint64)).greater", Ok("assert result.tolist() == [2**52 - 1]")),
    ("rw.Ranks(np.array([2**62 + 5], np.uint64))", VE("greater")),
    ("rw.rank_metrics(np.array([2**64 - 1], np.uint64), ['MR'])", VE("ranks")),
    ("rw.rank_metrics(np.array([3, 1], np.uint64), ['MR'])", Ok("assert result == {'MR': 2.0}")),
    ("rw.rank_metrics(np.array([2**52, 2**52 - 2], np.uint64), ['MR'])", Ok("assert result == {'MR': 2.0**52 - 1}")),
], ids=["from_ranks-2**63", "from_ranks-small", "from_ranks-2**52", "from_ranks-2**52+1", "Ranks-2**52-1",
        "Ranks-2**62+5", "rank_metrics-max", "rank_metrics-small", "rank_metrics-2**52"])
def test_unsigned_64_bit_ranks(call, expect):
    # In-range unsigned counts are accepted; counts above 2**52 (the most candidates a query can
    # have) are a ValueError naming the argument, like any out-of-range count.
    assert_case(Case(call, expect))


# --------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("test", ["randomization", "t", "wilcoxon", "sign", "bootstrap"])
def test_compare_near_the_largest_floats(test):
    # Differences of +-2e308 overflow float64; alternating signs make the true mean 0 and
    # the systems indistinguishable: p = 0.0 from an overflow is a wrong number.
    setup = ("big = np.array([1e308, -1e308] * 10) * (1 - np.arange(20) * 1e-3)\n"
             "a, b = big, -big")
    check = "finite(result.mean_difference); assert result.pvalue > 0.05, result"
    assert_case(Case(f"rw.compare(a, b, test={test!r}, n_resamples=1000, seed=1)",
                     either(Ok(check), VE(("a", "b"))), setup=setup))


@pytest.mark.parametrize("test", ["randomization", "t", "wilcoxon", "sign", "bootstrap"])
def test_compare_all_zero_differences(test):
    # Defined as effect size 0 and p = 1 (issue 21), never NaN.
    assert_case(Case(f"rw.compare(A, A.copy(), test={test!r}, n_resamples=1000, seed=1)",
                     Ok("assert result.effect_size == 0.0 and result.pvalue == 1.0, result")))


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_n_resamples_beyond_any_bound_allocates_nothing(test):
    assert_case(Case(f"rw.compare(A, B, test={test!r}, n_resamples=10**13, seed=1)", VE("n_resamples"),
                     memory=256 << 20, timeout=30))


def test_seed_minus_one_is_refused():
    assert_case(Case("rw.compare(A, B, seed=-1, n_resamples=100)", VE("seed")))
    assert_case(Case("rw.compare_systems({'x': RES_A, 'y': RES_B}, metrics=['MRR'], seed=-1)", VE("seed")))


def test_correct_none():
    assert_case(Case("rw.correct(None)", TE("pvalues")))


def test_compare_systems_empty_metrics_are_refused():
    assert_case(Case("rw.compare_systems({'x': RES_A, 'y': RES_B}, metrics=[])", VE("metrics")))
    assert_case(Case("rw.compare_systems({'x': RUN, 'y': rw.Run.from_dict(RD, name='y')}, QRELS, metrics=[])",
                     VE("metrics")))


# --------------------------------------------------------------------------------------
# Argument errors named in the issue
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", ["rw.precision(T, S, k=2**63)", "rw.reciprocal_rank(T, S, k=2**63)",
                                  "rw.ndcg(T, S, k=2**64)"])
def test_cutoff_beyond_int64(call):
    assert_case(Case(call, VE("k")))


@pytest.mark.parametrize("call, name", [("rw.evaluate(T, S, 5)", "metrics"), ("rw.rank_metrics(RK, 5)", "metrics"),
                                        ("rw.trec_eval(QRELS, RUN, 5)", "measures")])
def test_metrics_that_are_not_names(call, name):
    assert_case(Case(call, TE(name)))


def test_rbp_persistence_as_text():
    assert_case(Case("rw.rbp(T, S, p='0.5')", TE("p")))


@pytest.mark.parametrize("call, names", [
    ("rw.evaluate([[0, 1, 0], [1, 0]], [[0.5, 0.25, 0.125], [0.75, 0.5]], ['MRR'])", (("y_true", "y_score"), "indptr")),
    ("rw.evaluate([[0, 1, 0], [1, 0, 0]], [[0.5, 0.25, 0.125], [0.75, 0.5]], ['MRR'])", ("y_score", "indptr")),
    ("rw.rank_positive(POS, [[0.125, 0.25, 0.875], [0.5]])", ("neg_scores", "indptr")),
    ("rw.rank_positive(scores=[[0.25, 0.125], [0.5]], true_index=[0, 0])", ("scores", "indptr")),
], ids=["evaluate-both", "evaluate-scores", "rank_positive", "rank_positive-matrix"])
def test_ragged_lists_say_how_to_pass_them(call, names):
    assert_case(Case(call, VE(*names)))


_DECODED = ("q = result.to_dict(); assert list(q) == ['q'] and list(q['q']) == ['d'], q; "
            "assert list(result.query_ids) == ['q']")


@pytest.mark.parametrize("call", [
    "rw.Run.from_dict({b'q': {b'd': 1.0}})", "rw.Qrels.from_dict({b'q': {b'd': 1}})",
    "rw.Run.from_arrays(np.array([b'q']), np.array([b'd']), np.array([1.0]))",
    "rw.Qrels.from_arrays(np.array([b'q']), np.array([b'd']), np.array([1]))",
    "rw.Run.from_arrays(np.array([b'q'], object), np.array([b'd'], object), np.array([1.0]))",
])
def test_bytes_query_ids_are_decoded_or_refused(call):
    assert_case(Case(call, either(Ok(_DECODED), TE(("query", "ids")))))


@pytest.mark.parametrize("call, name", [("rw.Run.read(CORRUPT_GZ_PATH)", "corrupt.run.gz"),
                                        ("rw.Run.read(TRUNCATED_GZ_PATH)", "truncated.run.gz"),
                                        ("rw.Qrels.read(CORRUPT_GZ_PATH)", "corrupt.run.gz"),
                                        ("rw.Run.read(GARBAGE_GZ_PATH)", "garbage.run.gz")])
def test_corrupt_gzip_names_the_file(call, name):
    assert_case(Case(call, VE(name)))


# --------------------------------------------------------------------------------------
# Streams and the command line
# --------------------------------------------------------------------------------------

_SAME_AS_FILE = "same(result.to_dict(), rw.Run.read(RUN_PATH).to_dict())"


_POSIX_ONLY = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes and /dev/stdin are POSIX")


@pytest.mark.parametrize("path", ["'-'", pytest.param("'/dev/stdin'", marks=_POSIX_ONLY)])
def test_readers_take_standard_input(path):
    assert_case(Case(f"rw.Run.read({path})", Ok(_SAME_AS_FILE), stdin=_RUN_TEXT))
    assert_case(Case(f"rw.Qrels.read({path})", Ok("same(result.to_dict(), QRELS.to_dict())"), stdin=_QRELS_TEXT))


@_POSIX_ONLY
def test_readers_take_a_fifo():
    assert_case(Case("rw.Run.read(fifo(RUN_TEXT))", Ok(_SAME_AS_FILE)))


# The fixtures' texts, as the worker writes them (standard input is given as text).
_QRELS_TEXT = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq1 0 d4 1\nq2 0 d1 2\nq2 0 d5 0\n"
_RUN_TEXT = ("q1 Q0 d1 1 0.9 sys\nq1 Q0 d2 2 0.8 sys\nq1 Q0 d3 3 0.7 sys\nq1 Q0 d9 4 0.6 sys\n"
             "q2 Q0 d5 1 0.5 sys\nq2 Q0 d1 2 0.4 sys\n")
_CLEAN_ERROR = "status, out, err = result; assert status == 2, result; assert 'Traceback' not in err, err; "


def test_cli_iprec_far_below_zero_does_not_crash():
    assert_case(Case("cli('eval', '-m', 'iprec_at_recall.-10000000', QRELS_PATH, RUN_PATH)",
                     Ok("status, out, err = result; assert status in (0, 2), result; "
                        "assert status == 2 or 'iprec_at_recall' in out, result")))


def test_cli_p_inf_is_a_clean_error():
    assert_case(Case("cli('eval', '-m', 'P.inf', QRELS_PATH, RUN_PATH)",
                     Ok(_CLEAN_ERROR + "assert 'P.inf' in err and err.startswith('rankwise eval: error:'), err")))


def test_cli_compare_names_intersect():
    setup = ("other = tmp_path('other.run')\n"
             "rw.Run.from_dict({'q1': RD['q1'], 'q3': {'d1': 0.5}}, name='other').write(other)")
    assert_case(Case("cli('compare', QRELS_PATH, RUN_PATH, other)",
                     Ok(_CLEAN_ERROR + "assert '--intersect' in err and 'on_missing' not in err, err"), setup=setup))


def test_cli_suggests_the_trec_eval_name_of_ndcg_at_10():
    # Either the exact trec_eval equivalent is suggested, or rankwise's name is accepted as it.
    check = ("status, out, err = result\n"
             "if status == 0:\n"
             "    assert out == cli('eval', '-m', 'ndcg_cut.10', QRELS_PATH, RUN_PATH)[1], out\n"
             "else:\n"
             "    assert status == 2 and 'ndcg_cut.10' in err and 'Traceback' not in err, result\n")
    assert_case(Case("cli('eval', '-m', 'ndcg@10', QRELS_PATH, RUN_PATH)", Ok(check)))


def test_python_dash_m_rankwise():
    assert_case(Case("subprocess.run([sys.executable, '-m', 'rankwise', '--version'], capture_output=True, "
                     "text=True, timeout=60)",
                     Ok("assert result.returncode == 0 and result.stdout.strip() == f'rankwise {rw.__version__}', "
                        "result")))


@_POSIX_ONLY
def test_cli_reads_the_run_from_a_fifo():
    assert_case(Case("cli('eval', QRELS_PATH, fifo(RUN_TEXT))",
                     Ok("assert result == cli('eval', QRELS_PATH, RUN_PATH), result")))


def test_cli_reads_the_run_from_standard_input():
    assert_case(Case("cli('eval', QRELS_PATH, '-')", Ok("assert result == cli('eval', QRELS_PATH, RUN_PATH), result"),
                     stdin=_RUN_TEXT))


def test_console_script_reads_a_pipe():
    # zcat run.gz | rankwise eval qrels -
    assert_case(Case("subprocess.run([SCRIPT, 'eval', QRELS_PATH, '-'], input=RUN_TEXT, capture_output=True, "
                     "text=True, timeout=60)",
                     Ok("assert result.returncode == 0, result; "
                        "assert result.stdout == subprocess.run([SCRIPT, 'eval', QRELS_PATH, RUN_PATH], "
                        "capture_output=True, text=True, timeout=60).stdout, result")))


# --------------------------------------------------------------------------------------
# The runner itself
# --------------------------------------------------------------------------------------

def test_runner_reports_a_crash_as_a_failed_case():
    from _hostile_runner import judge, runner

    outcome = runner().run(Case("__import__('ctypes').string_at(0)", Ok()))
    if "asan" in os.environ.get("LD_PRELOAD", ""):
        # AddressSanitizer's SEGV handler reports the crash and exits with status 1.
        assert outcome["status"] == "error" and "Segmentation fault" in outcome["stderr"]
    elif sys.platform != "win32":  # Windows reports an access violation as an exit status
        assert outcome["status"] == "signal" and outcome["signal"] in ("SIGSEGV", "SIGBUS")
        assert "CRASHED" in judge(Case("0", Ok()), outcome)
    assert judge(Case("0", Ok()), outcome)
    # The worker survived: the next case runs.
    assert runner().run(Case("1 + 1", Ok()))["status"] == "returned"


def test_runner_reports_a_hang_and_a_warning():
    from _hostile_runner import judge, runner

    assert runner().run(Case("__import__('time').sleep(60)", Ok(), timeout=0.5))["status"] == "timeout"
    outcome = runner().run(Case("np.float64(1e308) * 10", Ok()))
    assert "RuntimeWarning" in judge(Case("0", Ok()), outcome)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the address-space limit is set on Linux")
def test_runner_limits_the_address_space():
    from _hostile_runner import runner

    outcome = runner().run(Case("np.ones(1 << 30)", Ok(), memory=256 << 20))
    assert outcome["status"] == "raised" and "MemoryError" in outcome["type"]


def test_runner_checks_exception_type_and_name():
    from _hostile_runner import judge

    raised = {"status": "raised", "type": "builtins.OverflowError", "message": "int too large", "warnings": []}
    assert "OverflowError" in judge(Case("0", VE("k")), raised)
    subclass = {"status": "raised", "type": "builtins.UnicodeDecodeError", "message": "k", "warnings": []}
    assert judge(Case("0", VE("k")), subclass)  # a subclass is not the type asked for
    unnamed = {"status": "raised", "type": "builtins.ValueError", "message": "bad value", "warnings": []}
    assert "does not name 'k'" in judge(Case("0", VE("k")), unnamed)
    assert judge(Case("0", Raises(ValueError, ("k",))), {**unnamed, "message": "k is bad"}) is None
