import numpy as np
import numpy.typing as npt

def evaluate_range(
    indptr: npt.NDArray[np.int64],
    y_score: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    y_true: npt.NDArray[np.generic],
    tie_key: npt.NDArray[np.int64],
    shared_scores: bool,
    kinds: npt.NDArray[np.int32],
    cutoffs: npt.NDArray[np.int64],
    flags: npt.NDArray[np.uint8],
    params: npt.NDArray[np.float64],
    ties: int,
    level: float,
    max_grade: float,
    top_k: int,
    q_start: int,
    q_stop: int,
    out: npt.NDArray[np.float64],
    n_relevant: npt.NDArray[np.int64],
    stop: npt.NDArray[np.uint8] | None = ...,
    shared_keys: bool = ...,
) -> int:
    """Returns the number of queries in the range holding a NaN score."""
    ...
