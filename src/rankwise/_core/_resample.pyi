import numpy as np
import numpy.typing as npt

def sign_flip_sums(
    d: npt.NDArray[np.float64],
    key0: int,
    key1: int,
    exact: bool,
    r_start: int,
    r_stop: int,
    out: npt.NDArray[np.float64],
    table: npt.NDArray[np.float64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
def bootstrap_sums(
    d: npt.NDArray[np.float64],
    key0: int,
    key1: int,
    r_start: int,
    r_stop: int,
    out: npt.NDArray[np.float64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
def _py_words(key0: int, key1: int, r: int, count: int, out: npt.NDArray[np.uint64]) -> None: ...
def _py_bootstrap_indices(
    key0: int, key1: int, r: int, bound: int, count: int, out: npt.NDArray[np.uint64]
) -> None: ...
