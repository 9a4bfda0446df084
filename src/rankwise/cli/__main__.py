"""``python -m rankwise.cli``: the ``rankwise`` command."""
import sys

from .command import main

if __name__ == "__main__":
    sys.exit(main())
