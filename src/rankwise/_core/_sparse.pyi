import numpy as np
import numpy.typing as npt

def gather_rows(
    scores: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    labels: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]],
    excluded: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]],
    keys: tuple[npt.NDArray[np.int64], int],
    q_start: int,
    q_stop: int,
    offsets: npt.NDArray[np.int64],
    out_scores: npt.NDArray[np.float32] | npt.NDArray[np.float64],
    out_labels: npt.NDArray[np.uint8] | npt.NDArray[np.float64],
    out_keys: npt.NDArray[np.int64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
