import numpy as np
import numpy.typing as npt

def count_dense(
    values: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    pos: npt.NDArray[np.float64],
    mask: npt.NDArray[np.uint8],
    q_start: int,
    q_stop: int,
    counts: npt.NDArray[np.int64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
def count_ragged(
    values: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    indptr: npt.NDArray[np.int64],
    pos: npt.NDArray[np.float64],
    mask: npt.NDArray[np.uint8],
    q_start: int,
    q_stop: int,
    counts: npt.NDArray[np.int64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
