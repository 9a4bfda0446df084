"""The rankwise command: one module per subcommand."""
from .command import main

__all__ = ["main"]
