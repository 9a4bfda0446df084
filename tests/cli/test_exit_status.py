"""The command line's exit statuses for errors raised inside a subcommand (command.py's docstring):
bad input is status 2 with ``rankwise <command>: error: ...`` and no traceback; a bug keeps its
traceback."""
import pytest

from rankwise.cli import demo, main


@pytest.mark.parametrize("error, message", [
    (ValueError("the value is out of range"), "the value is out of range"),
    (ValueError(), "ValueError"),                         # an empty message still says what
    (OverflowError("too large"), "too large"),
    (OSError("disk gone"), "disk gone"),
    (MemoryError("8 GiB for the table"), "out of memory (8 GiB for the table)"),
])
def test_user_errors_exit_2_with_one_line(monkeypatch, capsys, error, message):
    def report(args):
        raise error

    monkeypatch.setattr(demo, "report", report)
    assert main(["demo"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"rankwise demo: error: {message}\n"


def test_bugs_keep_their_traceback(monkeypatch):
    def report(args):
        raise TypeError("a bug")

    monkeypatch.setattr(demo, "report", report)
    with pytest.raises(TypeError, match="a bug"):
        main(["demo"])
