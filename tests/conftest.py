import numpy as np
import pytest
from hypothesis import settings

settings.register_profile("rankwise", deadline=None, max_examples=150, print_blob=True)
settings.load_profile("rankwise")


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


def _merged_in_random_order(rng, parts):
    """Merge pairs (``a.merge(b)``) picked at random until one is left: every tree shape and order."""
    parts = list(parts)
    while len(parts) > 1:
        i, j = rng.choice(len(parts), size=2, replace=False)
        merged = parts[i].merge(parts[j])
        parts = [p for k, p in enumerate(parts) if k not in (i, j)] + [merged]
    return parts[0]


@pytest.fixture(scope="session")
def merged_in_random_order():
    return _merged_in_random_order
