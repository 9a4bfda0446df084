"""trec_eval 10.0's own conformance data: every printed line rankwise supports, byte for byte.

The expected outputs, qrels and runs are trec_eval's `test/` folder, vendored unchanged in
``tests/trec/data/trec_eval_oracle/`` with trec_eval's licence notice (its README gives the
command behind each file). Each command is replayed through ``rw.trec_eval(...).format()`` and through
the ``rankwise eval`` command line with trec_eval's own arguments; lines of measures
rankwise does not compute are dropped from the expected output (SKIPPED_MEASURES).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.cli import main
from rankwise.testing import trec as ref

ORACLES = Path(__file__).resolve().parent / "data" / "trec_eval_oracle"

#: Measures trec_eval 10.0 prints that rankwise does not compute, and why; their lines are
#: dropped from the expected outputs (a printed name is matched by its root).
SKIPPED_MEASURES = {
    "relstring": "a string of relevance values, not a number (and -mrelstring.20 is dropped from the "
                 "out.test.aql command)",
    "binG": "Lin's gain measure, not supported by rankwise",
    "G": "Lin's gain measure, not supported by rankwise",
    "ndcg_rel": "nDCG averaged over relevant documents, not supported by rankwise",
    "Rndcg": "nDCG at R, not supported by rankwise",
    "rbp": "trec_eval's rbp, not supported by rankwise (rankwise.rbp is its own implementation)",
    "rbp_resid": "depends on rbp",
}

# expected output -> (qrels, run, trec_eval arguments). From the oracle README / trec_eval's Makefile.
CASES = {
    "out.test": ("qrels.test", "results.test", []),
    "out.test[with-comments]": ("qrels.test.with-comments", "results.test", []),
    "out.comment.test": ("qrels.comment.test", "results.comment.test", []),
    "out.test.a": ("qrels.test", "results.test", ["-m", "all_trec"]),
    "out.test.aq": ("qrels.test", "results.test", ["-m", "all_trec", "-q"]),
    "out.test.aqc": ("qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c"]),
    "out.test.aqcM": ("qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c", "-M100"]),
    # trec_eval's command also has -mrelstring.20 (SKIPPED_MEASURES)
    "out.test.aql": ("qrels.rel_level", "results.test", ["-m", "all_trec", "-q", "-l2"]),
    "out.test.meas_params": ("qrels.test", "results.test", [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20"]),
}


def _expected_file(case: str) -> Path:
    return ORACLES / case.split("[")[0]


def skipped_line(line: str) -> bool:
    name = line.split("\t", 1)[0].rstrip()
    return any(name == root or name.startswith(root + "_") for root in SKIPPED_MEASURES)


def expected_lines(case: str) -> list[str]:
    lines = _expected_file(case).read_text().splitlines()
    return [line for line in lines if line and not skipped_line(line)]


def skipped_lines(case: str) -> list[str]:
    return [line for line in _expected_file(case).read_text().splitlines() if line and skipped_line(line)]


def api_arguments(args: list[str]) -> tuple[list[str], dict, bool]:
    """trec_eval's arguments -> (measures, trec_eval keywords, per_query), parsed here independently."""
    measures, options, per_query = [], {}, False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-m":
            measures.append(args[i + 1])
            i += 1
        elif arg.startswith("-m"):
            measures.append(arg[2:])
        elif arg == "-q":
            per_query = True
        elif arg == "-c":
            options["complete"] = True
        elif arg.startswith("-M"):
            options["depth"] = int(arg[2:])
        elif arg.startswith("-l"):
            options["relevance_level"] = int(arg[2:])
        else:
            raise AssertionError(arg)
        i += 1
    return measures or ["official"], options, per_query


def _diff(got: list[str], want: list[str]) -> str:
    report = [f"{len(got)} lines from rankwise, {len(want)} expected"]
    for i, (a, b) in enumerate(zip(got, want, strict=False)):
        if a != b:
            report.append(f"line {i + 1}: got {a!r}\n          want {b!r}")
            if len(report) > 12:
                break
    missing = set(want) - set(got)
    if missing:
        report.append(f"{len(missing)} expected lines never produced, e.g. {sorted(missing)[:5]}")
    return "\n".join(report)


@pytest.mark.parametrize("case", list(CASES))
def test_trec_eval_api_reproduces_every_supported_line(case):
    qrels_file, run_file, args = CASES[case]
    measures, options, per_query = api_arguments(args)
    qrels = rw.Qrels.read(ORACLES / qrels_file)
    run = rw.Run.read(ORACLES / run_file)
    got = rw.trec_eval(qrels, run, measures, **options).format(per_query=per_query).splitlines()
    want = expected_lines(case)
    assert got == want, _diff(got, want)


@pytest.mark.parametrize("case", list(CASES))
def test_cli_reproduces_every_supported_line(case, capsys):
    qrels_file, run_file, args = CASES[case]
    assert main(["eval", str(ORACLES / qrels_file), str(ORACLES / run_file), *args]) == 0
    got = capsys.readouterr().out.splitlines()
    want = expected_lines(case)
    assert got == want, _diff(got, want)


def test_installed_console_script():
    script = shutil.which("rankwise", path=str(Path(sys.executable).parent)) or shutil.which("rankwise")
    assert script, "the rankwise console script is not installed"
    qrels_file, run_file, args = CASES["out.test.meas_params"]
    out = subprocess.run([script, "eval", str(ORACLES / qrels_file), str(ORACLES / run_file), *args],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    want = expected_lines("out.test.meas_params")
    assert out.splitlines() == want, _diff(out.splitlines(), want)


def test_comparison_is_not_vacuous():
    counts = {case: len(expected_lines(case)) for case in CASES}
    # every file contributes, the -q files with hundreds of per-query lines
    assert all(n >= 30 for n in counts.values()), counts
    assert sum(counts.values()) >= 1600, counts
    per_query = [line for case in CASES for line in expected_lines(case) if "\tall\t" not in line]
    assert len(per_query) >= 1000
    roots = {line.split("\t")[0].rstrip() for case in CASES for line in expected_lines(case)}
    for name in ("map", "gm_map", "bpref", "infAP", "gm_bpref", "ndcg", "ndcg_1=3,2=9,4=4.5", "ndcg_cut_23",
                 "iprec_at_recall_0.25", "11pt_avg", "11pt_avg_.25,.5,.75", "Rprec_mult_5.00", "utility_2,-1,0,0",
                 "set_F", "set_map", "relative_P_1000", "map_cut_5", "success_20", "num_nonrel_judged_ret"):
        assert name in roots
    # and only the measures listed in SKIPPED_MEASURES are dropped
    dropped = {line.split("\t")[0].rstrip() for case in CASES for line in skipped_lines(case)}
    assert {name.split("_")[0] if name.startswith("relstring") else name for name in dropped} \
        == set(SKIPPED_MEASURES)


@pytest.mark.parametrize("case", list(CASES))
def test_reference_model_reproduces_the_oracle(case):
    """The pure-Python model the random tests compare against is itself exact on trec_eval's data."""
    qrels_file, run_file, args = CASES[case]
    measures, options, per_query = api_arguments(args)
    qrels, run, run_name = _read_qrels(ORACLES / qrels_file), *_read_run(ORACLES / run_file)
    res = ref.evaluate(qrels, run, measures, **options)
    lines = []
    if per_query:
        for qid in res.query_ids:
            lines += [ref.format_line(s.name, qid, res.per_query[qid][s.name], s.root in ref.COUNTS)
                      for s in res.specs if s.root not in ("runid", "num_q") and s.root not in ref.GEOMETRIC]
    for s in res.specs:
        if s.root == "runid":
            lines.append(f"{'runid':<22}\tall\t{run_name}")
        elif s.root == "num_q":
            lines.append(f"{'num_q':<22}\tall\t{res.num_q}")
        else:
            lines.append(ref.format_line(s.name, "all", res.summary[s.name], s.root in ref.COUNTS))
    want = expected_lines(case)
    assert lines == want, _diff(lines, want)


def _read_qrels(path: Path) -> dict:
    out: dict = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            qid, _, doc, rel = line.split()[:4]
            out.setdefault(qid, {})[doc] = int(rel)
    return out


def _read_run(path: Path):
    out: dict = {}
    name = None
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            qid, _, doc, _, score, name = line.split()[:6]
            out.setdefault(qid, {})[doc] = float(score)
    return out, name
