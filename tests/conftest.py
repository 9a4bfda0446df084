import numpy as np
import pytest
from hypothesis import settings

settings.register_profile("rankwise", deadline=None, max_examples=150, print_blob=True)
settings.load_profile("rankwise")


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)
