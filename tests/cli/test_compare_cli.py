"""`rankwise compare`: the command, its formats, its errors, and the README's example output."""
import csv
import io
import re
import shutil
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.cli import main
from rankwise.trec import read_example

DATA = Path(rw.__file__).parent / "data"
README = Path(__file__).resolve().parents[2] / "README.md"


def example_systems():
    qrels, run = read_example()
    return qrels, run, rw.Run.read(DATA / "example2.run")


def run_cli(capsys, *argv):
    code = main(["compare", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_example_is_compare_systems_of_the_bundled_runs(capsys):
    code, out, _ = run_cli(capsys, "--example", "--baseline", "example")
    assert code == 0
    qrels, run, second = example_systems()
    report = rw.compare_systems({"example": run, "example2": second}, qrels, list(rw.stats.report.TREC_MEASURES),
                                baseline="example")
    assert out.rstrip("\n") == report.to_text()
    assert "exact over all 1,024 sign patterns" in out


def test_files_and_options(capsys, tmp_path):
    qrels, run, second = example_systems()
    for name in ("example.qrels", "example.run", "example2.run"):
        shutil.copy(DATA / name, tmp_path / name)
    paths = [str(tmp_path / n) for n in ("example.qrels", "example.run", "example2.run")]
    code, out, _ = run_cli(capsys, *paths, "-m", "map", "-m", "P.5", "--test", "t", "--correction", "bh",
                           "--format", "csv")
    assert code == 0
    report = rw.compare_systems({"example": run, "example2": second}, qrels, ["map", "P.5"], test="t",
                                correction="bh")
    assert out == report.to_csv()
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["metric"] for r in rows] == ["map", "P_5"]
    # The baseline may be named by its file.
    code, out, _ = run_cli(capsys, *paths, "--baseline", "example2.run", "--format", "markdown",
                           "--test", "bootstrap", "--seed", "7", "--resamples", "2000")
    assert code == 0
    assert "| example2 (baseline) |" in out and "2,000 resamples, seed 7" in out
    code, out, _ = run_cli(capsys, *paths, "--format", "latex", "--correction", "none", "--alpha", "0.01")
    assert code == 0 and out.startswith("% 2 systems") and r"\begin{tabular}{lrrrr}" in out


def test_runs_with_the_same_run_id_are_named_by_file(capsys, tmp_path):
    shutil.copy(DATA / "example.run", tmp_path / "a.run")
    shutil.copy(DATA / "example.run", tmp_path / "b.run")
    code, out, _ = run_cli(capsys, str(DATA / "example.qrels"), str(tmp_path / "a.run"), str(tmp_path / "b.run"),
                           "--baseline", "a.run")
    assert code == 0
    assert "a.run (baseline)" in out and "b.run vs a.run" in out
    assert re.search(r"b\.run vs a\.run\s+map\s+\+0\.0000 .* 1\.0000\s+1\.0000\s+0/10/0", out)


def test_complete_and_intersect(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "--example", "-c", "-m", "map")
    assert code == 0 and "11 queries" in out
    # A run missing a topic: an error unless --intersect.
    lines = (DATA / "example2.run").read_text().splitlines()
    (tmp_path / "short.run").write_text("\n".join(line for line in lines if not line.startswith("401 ")) + "\n")
    argv = [str(DATA / "example.qrels"), str(DATA / "example.run"), str(tmp_path / "short.run"), "-m", "map"]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and "different queries" in err and "'401'" in err
    # The command line's option, not the Python argument.
    assert "pass --intersect to compare the 9 queries they share" in err and "on_missing" not in err
    code, out, _ = run_cli(capsys, *argv, "--intersect")
    assert code == 0 and "9 queries" in out


@pytest.mark.parametrize("argv, message", [
    ([], "compare needs QRELS and at least two RUN files"),
    (["q.txt", "r.txt"], "compare needs QRELS and at least two RUN files"),
    (["--example", "x.qrels"], "pass QRELS and RUN files, or --example, not both"),
    (["--example", "--baseline", "bm25"], "argument --baseline: 'bm25' is none of the runs (example, example2)"),
    (["--example", "-m", "nope"], "argument -m: unknown trec_eval measure 'nope'"),
])
def test_errors_exit_2_with_a_message(capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("rankwise compare: error: ") and message in err


def test_missing_file_is_an_error(capsys, tmp_path):
    code, _, err = run_cli(capsys, str(DATA / "example.qrels"), str(DATA / "example.run"), str(tmp_path / "no.run"))
    assert code == 2 and "no.run" in err


@pytest.mark.parametrize("argv, message", [
    (["--resamples", "0"], "argument --resamples: must be an integer from 1 to 2**30, got '0'"),
    (["--resamples", "1.5"], "argument --resamples: must be an integer from 1 to 2**30, got '1.5'"),
    (["--resamples", str(2**63)], "argument --resamples: must be an integer from 1 to 2**30"),
    (["--alpha", "2"], "argument --alpha: must be a number in (0, 1), got '2'"),
    (["--alpha", "nan"], "argument --alpha: must be a number in (0, 1), got 'nan'"),
    (["--alpha", "0"], "argument --alpha: must be a number in (0, 1), got '0'"),
    (["--seed", "-1"], "argument --seed: must be an integer from 0 to 2**128 - 1, got '-1'"),
    (["--seed", "x"], "argument --seed: must be an integer from 0 to 2**128 - 1, got 'x'"),
])
def test_numbers_are_checked_by_the_parser(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", "--example", *argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"rankwise compare: error: {message}" or message in err.splitlines()[-1]


def test_unknown_test_is_rejected_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", "--example", "--test", "anova"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'anova'" in capsys.readouterr().err


@pytest.mark.skipif(not README.exists(), reason="README.md is only in a source checkout")
def test_readme_shows_the_actual_output(capsys):
    text = README.read_text()
    match = re.search(r"```bash\n\$ (rankwise compare [^\n]*)\n(.*?)```", text, flags=re.S)
    assert match, "README has no `$ rankwise compare ...` block"
    command, shown = match.group(1), match.group(2)
    assert "--example" in command
    assert main(command.split()[1:]) == 0
    assert capsys.readouterr().out == shown
