"""rankwise fuse: the fused run file equals rw.fuse on the same runs; errors exit 2 naming the argument."""
import pytest

import rankwise as rw
from rankwise._core.bundled import data_path
from rankwise.cli import main

RUNS = [str(data_path("example.run")), str(data_path("example2.run"))]


@pytest.mark.parametrize("args, options", [
    ([], {}),
    (["-m", "comb_mnz", "--norm", "z-score", "--weights", "1,3", "--depth", "20"],
     {"method": "mnz", "norm": "z-score", "weights": [1, 3], "depth": 20}),
    (["-m", "rrf", "-k", "10", "--name", "both"], {"k": 10, "name": "both"}),
])
def test_the_written_run_is_fuse(tmp_path, args, options):
    out = tmp_path / "fused.run.gz"
    assert main(["fuse", *RUNS, "-o", str(out), *args]) == 0
    want = rw.fuse([rw.Run.read(path) for path in RUNS], **options)
    got = rw.Run.read(out)
    assert got.to_dict() == want.to_dict() and got.name == want.name


@pytest.mark.parametrize("args, message", [
    ([RUNS[0], "-o", "x"], "fuse needs at least 2 runs"),
    ([*RUNS, "-o", "x", "-m", "combsumm"], "did you mean"),
    ([*RUNS, "-o", "x", "--weights", "1"], "argument --weights: 1 weights for 2 runs"),
    ([*RUNS, "-o", "x", "--weights", "1,a"], "argument --weights: comma-separated numbers"),
    ([*RUNS, "-o", "x", "-m", "max", "--weights", "1,2"], "weights do not apply to method='max'"),
    ([RUNS[0], "missing.run", "-o", "x"], "argument RUN: can't open 'missing.run'"),
    ([*RUNS, "-o", "/nonexistent/dir/out"], "argument -o: can't write"),
])
def test_errors_exit_2_naming_the_argument(args, message, capsys):
    assert main(["fuse", *args]) == 2
    assert message in capsys.readouterr().err
