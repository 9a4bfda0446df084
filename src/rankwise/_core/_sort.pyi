import numpy as np
import numpy.typing as npt

def _py_sort_items(
    scores: npt.NDArray[np.float64],
    labels: npt.NDArray[np.float64],
    keys: npt.NDArray[np.int64],
    label_order: int,
    stable: bool = False,
    stop: npt.NDArray[np.uint8] | None = None,
) -> npt.NDArray[np.int64]: ...
