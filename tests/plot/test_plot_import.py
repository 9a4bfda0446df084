"""`import rankwise`, `import rankwise.plot` and the command line load no matplotlib (it is drawn
with only when a figure is), and rankwise itself does not import rankwise.plot."""
import subprocess
import sys

import pytest

CHECK = ("import sys, {module}; "
         "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib' or m == 'rankwise.plot'))")


@pytest.mark.parametrize(("module", "loaded"), [("rankwise", []), ("rankwise.plot", ["rankwise.plot"]),
                                                ("rankwise.cli", ["rankwise.plot"])])
def test_no_matplotlib_at_import(module, loaded):
    out = subprocess.run([sys.executable, "-c", CHECK.format(module=module)], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == repr(loaded)
