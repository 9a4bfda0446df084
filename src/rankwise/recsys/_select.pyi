import numpy as np
import numpy.typing as npt

def select_rows(
    scores: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    excluded: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]],
    options: tuple[bool, bool],
    q_start: int,
    q_stop: int,
    out: npt.NDArray[np.int64],
    out_scores: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    scratch: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64],
                   npt.NDArray[np.int64]],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> tuple[int, int, int] | None: ...
def pieces(n_items: int, indptr: npt.NDArray[np.int64]) -> int: ...
def heap_words(k: int, n_items: int) -> int: ...
def use_avx2(on: bool) -> bool: ...
