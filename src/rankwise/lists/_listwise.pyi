from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

def evaluate_range(
    indptr: npt.NDArray[np.int64],
    y_score: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    y_true: npt.NDArray[np.generic],
    tie_key: npt.NDArray[np.int64],
    spec: tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.uint8], npt.NDArray[np.float64],
                npt.NDArray[np.uint8]],
    options: Mapping[str, float],  # ties, level, max_grade, top_k, shared_scores, shared_keys
    q_start: int,
    q_stop: int,
    output: tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> int:
    """Returns the number of queries in the range holding a NaN score."""
    ...
