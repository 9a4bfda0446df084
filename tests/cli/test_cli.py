"""The `rankwise` command and its bundled example."""
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.cli import demo as _demo
from rankwise.cli import main
from rankwise.trec import read_example

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_demo_data.py"


def test_demo_prints_every_policy(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for word in ("expected", "optimistic", "pessimistic", "stable", "trec", "rows reversed", *_demo.DEMO_METRICS):
        assert word in out


def test_demo_numbers_are_evaluate_numbers(capsys):
    data = _demo.load_demo()
    main(["demo", "-m", "MAP", "-m", "nDCG@10"])
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("nDCG@10"))
    want = rw.evaluate(data["label"], data["score"], ["nDCG@10"], qid=data["query"]).mean()["nDCG@10"]
    assert float(row.split()[1]) == pytest.approx(want, abs=5e-5)


def test_demo_data_has_graded_labels_and_ties():
    data = _demo.load_demo()
    assert set(np.unique(data["label"])) == {0, 1, 2, 3}
    tied, total = _demo._tied_share(data)
    assert tied > total // 2


def test_bad_metric_is_a_clean_error(capsys):
    assert main(["demo", "-m", "nDGC@10"]) == 2
    assert "did you mean 'nDCG@10'" in capsys.readouterr().err


def test_console_script_and_version():
    # The `rankwise` command pip installed beside this interpreter (rankwise.exe on Windows).
    script = shutil.which("rankwise", path=sysconfig.get_path("scripts"))
    assert script is not None
    out = subprocess.run([script, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"rankwise {rw.__version__}"


def test_reader_closing_the_pipe_early_is_not_an_error():
    # Closing the read end before the child prints makes its write fail with EPIPE.
    proc = subprocess.Popen([sys.executable, "-m", "rankwise.cli", "demo"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()
    assert "Traceback" not in proc.stderr.read().decode()
    assert proc.wait() in (0, 1)


@pytest.mark.skipif(not SCRIPT.exists(), reason="scripts/ is only in a source checkout")
def test_bundled_data_is_what_the_generator_writes(tmp_path):
    subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "demo.tsv")], check=True)
    from importlib.resources import files
    assert (tmp_path / "demo.tsv").read_bytes() == files("rankwise").joinpath("data", "demo.tsv").read_bytes()


TREC_SCRIPT = SCRIPT.parent / "make_trec_example.py"


@pytest.mark.skipif(not TREC_SCRIPT.exists(), reason="scripts/ is only in a source checkout")
def test_bundled_trec_example_is_what_the_generator_writes(tmp_path):
    subprocess.run([sys.executable, str(TREC_SCRIPT), str(tmp_path)], check=True)
    from importlib.resources import files
    for name in ("example.qrels", "example.run", "example2.run"):
        assert (tmp_path / name).read_bytes() == files("rankwise").joinpath("data", name).read_bytes()


def test_eval_example_is_the_trec_eval_of_the_bundled_files(capsys):
    assert main(["eval", "--example", "-m", "map", "-m", "P.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    from rankwise.trec import read_example
    res = rw.trec_eval(*read_example(), ["map", "P.5"])
    assert lines == [f"map                   \tall\t{res.mean()['map']:.4f}",
                     f"P_5                   \tall\t{res.mean()['P_5']:.4f}"]
    # A topic only in the qrels and one only in the run are both left out.
    assert len(res.query_ids) == 10 and "411" not in res.query_ids and "412" not in res.query_ids


# ---------------------------------------------------------------------------- python -m rankwise

DATA = Path(rw.__file__).parent / "data"
QRELS, RUN = str(DATA / "example.qrels"), str(DATA / "example.run")


def console_script() -> str:
    script = shutil.which("rankwise", path=sysconfig.get_path("scripts"))
    assert script is not None
    return script


@pytest.mark.parametrize("argv, status", [
    (["--version"], 0),
    (["eval", "--example", "-m", "map", "-m", "P.5"], 0),
    (["eval", "--example", "-m", "nope"], 2),            # refused by the command
    (["eval", "--example", "-l", "-1"], 2),              # refused by argparse
    ([], 2),                                             # no command
    (["compare", "--example", "--baseline", "example", "--seed", "3", "-m", "map"], 0),
])
def test_python_m_rankwise_is_the_console_script(argv, status):
    module = subprocess.run([sys.executable, "-m", "rankwise", *argv], capture_output=True, text=True, timeout=120)
    script = subprocess.run([console_script(), *argv], capture_output=True, text=True, timeout=120)
    assert (module.returncode, module.stdout, module.stderr) == (script.returncode, script.stdout, script.stderr)
    assert module.returncode == status
    assert "Traceback" not in module.stderr


# ---------------------------------------------------------------------------- errors speak CLI

def cli(capsys, *argv) -> tuple[int, str]:
    """Exit status and stderr of one command, whether argparse or the command refuses it."""
    try:
        code = main(list(argv))
    except SystemExit as exit_info:
        code = exit_info.code
    out, err = capsys.readouterr()
    if code:
        assert out == ""
    return code, err


def bad_files(folder: Path) -> dict:
    good = (DATA / "example.run").read_bytes()
    files = {
        "corrupt.gz": gzip.compress(good)[:-8] + b"\0\0\0\0" + gzip.compress(good)[-4:],
        "truncated.gz": gzip.compress(good)[:500],
        "garbage.gz": gzip.compress(good) + b"junk",
        "zero.gz": b"",
        "empty-inside.gz": gzip.compress(b""),
        "empty.run": b"",
        "nul.run": b"401 Q0 d1 1 1 r\n" * 2 + b"401 Q0 \0 1 1 r\n",
        "latin1.run": "1 Q0 caf\xe9 1 1 r\n".encode("latin-1"),
        "short.run": b"401 Q0 d1\n",
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / "a-directory").mkdir()
    return files


@pytest.mark.parametrize("argv, message", [
    # -m: measures are checked before any file is read.
    (["eval", "--example", "-m", "nope"], "argument -m: unknown trec_eval measure 'nope'"),
    (["eval", "--example", "-m", "P.inf"], "argument -m: "),
    (["eval", "--example", "-m", "map", "-m", "relstring"], "argument -m: "),
    (["eval", "--example", "-m", "ndcg.1e11=1"], "argument -m: "),
    # Numbers: argparse's own message names the option.
    (["eval", "--example", "-l", "-1"], "argument -l: must be an integer from 0 to 2**53 (a fractional part is "
                                        "dropped, as trec_eval's atol drops it: '1.5' is 1), got '-1': below 0"),
    (["eval", "--example", "-l", "inf"], "argument -l: must be an integer from 0 to 2**53 (a fractional part is "
                                         "dropped, as trec_eval's atol drops it: '1.5' is 1), got 'inf'; "
                                         "trec_eval would read it as 0"),
    (["eval", "--example", "-l", "nan"], "argument -l: must be an integer from 0 to 2**53"),
    (["eval", "--example", "-l", "two"], "argument -l: must be an integer from 0 to 2**53"),
    (["eval", "--example", "-M", "-3"], "argument -M: must be an integer from 0 to 2**63 - 1 (a fractional part is "
                                        "dropped, as trec_eval's atol drops it: '1.5' is 1), got '-3': "
                                        "trec_eval 10.0 crashes"),
    (["eval", "--example", "-M", "2e5"], "argument -M: must be an integer from 0 to 2**63 - 1 (a fractional part "
                                         "is dropped, as trec_eval's atol drops it: '1.5' is 1), got '2e5'; "
                                         "trec_eval would read it as 2"),
    (["eval", "--example", "-M", str(2**63)], "argument -M: must be an integer from 0 to 2**63 - 1"),
    (["eval", "--example", "--ties", "random"], "argument --ties: invalid choice: 'random'"),
    (["eval", "--example", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
    # ties='expected' is --ties expected here.
    (["eval", "--example", "--ties", "expected"], "argument --ties: expected has no closed form for gm_map, "
                                                  "bpref, iprec_at_recall (of the default measures"),
    (["eval", "--example", "--ties", "expected", "-m", "map", "-m", "set_F", "-M", "5"],
     "argument --ties: expected has no closed form for set_F (with -M)"),
    # Arguments.
    (["eval", QRELS], "eval needs QRELS and RUN files (or --example)"),
    (["eval", "--example", QRELS], "pass QRELS and RUN, or --example, not both"),
    (["eval", "-", "-"], "standard input (- or /dev/stdin) can be read once"),
    (["eval", "-", "/dev/stdin"], "standard input (- or /dev/stdin) can be read once"),
    (["eval", QRELS, "{tmp}/absent.run"], "argument run: can't open '{tmp}/absent.run': No such file or directory"),
    (["eval", "{tmp}/absent.qrels", RUN], "argument qrels: can't open '{tmp}/absent.qrels': No such file"),
    (["eval", QRELS, "{tmp}/corrupt.gz"], "argument run: {tmp}/corrupt.gz: cannot decompress as gzip "
                                          "(incorrect data check)"),
    (["eval", QRELS, "{tmp}/truncated.gz"], "argument run: {tmp}/truncated.gz: the gzip data is truncated"),
    (["eval", QRELS, "{tmp}/garbage.gz"], "argument run: {tmp}/garbage.gz: the data after the end of the gzip "
                                          "stream"),
    (["eval", QRELS, "{tmp}/zero.gz"], "argument run: {tmp}/zero.gz: no run lines found: the file is empty"),
    (["eval", QRELS, "{tmp}/empty-inside.gz"], "argument run: {tmp}/empty-inside.gz: no run lines found: the "
                                               "decompressed data is empty"),
    (["eval", QRELS, "{tmp}/empty.run"], "argument run: {tmp}/empty.run: no run lines found: the file is empty"),
    (["eval", QRELS, "{tmp}/nul.run"], "argument run: {tmp}/nul.run, line 3: NUL byte"),
    (["eval", QRELS, "{tmp}/latin1.run"], "argument run: {tmp}/latin1.run, line 1: docno 'caf\\xe9' is not "
                                          "valid UTF-8"),
    (["eval", QRELS, "{tmp}/short.run"], "argument run: {tmp}/short.run, line 1: a run line needs at least 6"),
    (["eval", "{tmp}/short.run", RUN], "argument qrels: {tmp}/short.run, line 1: a qrels line needs 4 fields "
                                       "(qid iter docno rel), found 3"),
    (["compare", QRELS, RUN, "{tmp}/a-directory"], "argument run: can't open '{tmp}/a-directory': Is a "
                                                   "directory"),
    # compare
    (["compare", "--example", "-m", "P.nope"], "argument -m: "),
    (["compare", "--example", "--baseline", "bm25"], "argument --baseline: 'bm25' is none of the runs"),
    (["compare", "--example", "--resamples", "0"], "argument --resamples: must be an integer from 1"),
    (["compare", "--example", "--alpha", "1"], "argument --alpha: must be a number in (0, 1), got '1'"),
    (["compare", "--example", "--seed", "-1"], "argument --seed: must be an integer from 0 to 2**128 - 1, got '-1'"),
    (["compare", "--example", "--test", "anova"], "argument --test: invalid choice: 'anova'"),
    (["compare", "-", RUN, "-"], "standard input (- or /dev/stdin) can be read once"),
    (["compare", QRELS, RUN], "compare needs QRELS and at least two RUN files (or --example)"),
    (["compare", QRELS, RUN, RUN], "the same run file is given twice"),
    # demo
    (["demo", "-m", "nDGC@10"], "argument -m/--metric: unknown metric 'nDGC@10'; did you mean 'nDCG@10'?"),
    (["demo", "-m", "P@0"], "argument -m/--metric: "),
    (["demo", "-m", "P@1e400"], "argument -m/--metric: "),
    (["demo", "-m", "MRR", "-m", f"P@{2**64}"], "argument -m/--metric: "),
])
def test_every_error_names_the_option_or_argument(capsys, tmp_path, argv, message):
    bad_files(tmp_path)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, err = cli(capsys, *argv)
    assert code == 2
    last = err.splitlines()[-1]
    command = argv[0]
    assert last.startswith(f"rankwise {command}: error: ")
    assert message.replace("{tmp}", str(tmp_path)) in last
    assert "Traceback" not in err
    # The Python names of the same settings never appear.
    for python_name in ("relevance_level", "depth=", "n_resamples", "on_missing", "ties=", "alpha=", "seed="):
        assert python_name not in last


def test_different_queries_name_intersect(capsys, tmp_path):
    lines = (DATA / "example2.run").read_text().splitlines()
    (tmp_path / "short.run").write_text("\n".join(line for line in lines if not line.startswith("401 ")) + "\n")
    code, err = cli(capsys, "compare", QRELS, RUN, str(tmp_path / "short.run"), "-m", "map")
    assert code == 2
    assert err == ("rankwise compare: error: the runs cover different queries: 1 in example only "
                   "(e.g. '401'); pass --intersect to compare the 9 queries they share, or -c to score the "
                   "missing ones 0\n")


def test_errors_reach_no_traceback_in_a_real_process(tmp_path):
    bad_files(tmp_path)
    for argv in (["eval", "-m", "P.inf", QRELS, RUN], ["eval", QRELS, str(tmp_path / "corrupt.gz")],
                 ["eval", QRELS, str(tmp_path / "a-directory")], ["compare", "--example", "--seed", "-5"]):
        result = subprocess.run([sys.executable, "-m", "rankwise", *argv], capture_output=True, text=True,
                                timeout=120)
        assert result.returncode == 2, (argv, result.stderr)
        assert "Traceback" not in result.stderr and result.stderr.count("\n") >= 1
        assert result.stdout == ""


def test_a_bug_keeps_its_traceback(monkeypatch):
    # Only bad input is worded as an error; anything else is a bug in rankwise.
    from rankwise.cli import eval as cli_module

    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(cli_module, "trec_eval", broken)
    with pytest.raises(KeyError, match="a bug"):
        main(["eval", "--example", "-m", "map"])


# ---------------------------------------------------------------------------- standard input, FIFOs, Ctrl-C

def eval_output(*argv, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rankwise", "eval", *argv], input=stdin, capture_output=True,
                          timeout=120)


@pytest.mark.parametrize("compress", [False, True])
def test_eval_reads_standard_input(compress):
    files = eval_output("-q", "-m", "all_trec", QRELS, RUN)
    assert files.returncode == 0 and files.stdout
    run = (DATA / "example.run").read_bytes()
    qrels = (DATA / "example.qrels").read_bytes()
    pack = gzip.compress if compress else (lambda b: b)
    for argv, data in (([QRELS, "-"], run), (["-", RUN], qrels)):
        piped = eval_output("-q", "-m", "all_trec", *argv, stdin=pack(data))
        assert (piped.returncode, piped.stdout, piped.stderr) == (0, files.stdout, b"")
    if os.path.exists("/dev/stdin"):
        piped = eval_output("-q", "-m", "all_trec", QRELS, "/dev/stdin", stdin=pack(run))
        assert (piped.returncode, piped.stdout) == (0, files.stdout)


def test_compare_reads_one_run_from_standard_input():
    files = subprocess.run([sys.executable, "-m", "rankwise", "compare", "--seed", "1", QRELS, RUN,
                            str(DATA / "example2.run")], capture_output=True, timeout=120)
    piped = subprocess.run([sys.executable, "-m", "rankwise", "compare", "--seed", "1", QRELS, RUN, "-"],
                           input=(DATA / "example2.run").read_bytes(), capture_output=True, timeout=120)
    assert files.returncode == 0 and (piped.returncode, piped.stdout) == (0, files.stdout)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no os.mkfifo (Windows)")
def test_eval_reads_a_fifo(tmp_path):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "rankwise", "eval", "-m", "map", "-m", "P.5", QRELS, str(fifo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def write():
        with open(fifo, "wb") as f:         # blocks until the command opens the FIFO
            f.write(gzip.compress((DATA / "example.run").read_bytes()))

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    out, err = proc.communicate(timeout=120)
    if writer.is_alive():
        # The command ended without opening the FIFO: let the writer go.
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    writer.join(timeout=60)
    assert proc.returncode == 0, err.decode()
    assert out == eval_output("-m", "map", "-m", "P.5", QRELS, RUN).stdout


@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_exits_130_with_one_line():
    # The child blocks reading standard input until interrupted. It takes SIGINT as Python
    # does by default even when pytest runs in the background, whose children ignore it.
    code = ("import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from rankwise.cli import main\nprint('ready', flush=True)\n"
            f"sys.exit(main(['eval', {QRELS!r}, '-']))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"ready\n"
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    proc.stdin.close()
    assert proc.returncode == 130
    assert err == b"rankwise eval: interrupted\n"


def test_eval_ci_prints_each_means_interval(capsys):
    assert main(["eval", "--example", "-m", "map", "-m", "num_ret", "--ci", "--confidence", "0.9",
                 "--resamples", "999", "--ci-method", "percentile", "--seed", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    interval = rw.trec_eval(*read_example(), ["map"]).mean(ci=0.9, n_resamples=999, method="percentile",
                                                           seed=4)["map"]
    assert lines == ["num_ret               \tall\t1000",
                     f"map                   \tall\t{interval.mean:.4f}\t{interval.low:.4f}\t{interval.high:.4f}"]
    assert main(["eval", "--example", "-m", "map", "--ci", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ci"]["level"] == 0.95 and report["ci"]["method"] == "bca" and report["ci"]["seed"] == 0
    assert main(["eval", "--example", "-m", "map", "--ci", "--format", "csv"]) == 0
    assert [row.split(",")[0] for row in capsys.readouterr().out.splitlines()] == ["query_id", "all", "ci_low",
                                                                                    "ci_high"]
    assert main(["eval", "--example", "-m", "map", "--confidence", "0.9"]) == 2
    assert "argument --confidence: an option of --ci's intervals: only with --ci" in capsys.readouterr().err
