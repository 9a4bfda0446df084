"""The `rankwise` command and its bundled example."""
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise import _demo
from rankwise.cli import main

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "make_demo_data.py"


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
