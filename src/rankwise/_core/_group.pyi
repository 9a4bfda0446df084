import numpy as np
import numpy.typing as npt

def run_starts(
    ids: npt.NDArray[np.int64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> npt.NDArray[np.int64] | None: ...
def group_by_query(
    ids: npt.NDArray[np.int64], wide: bool = False, stop: npt.NDArray[np.uint8] | None = ...,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], int] | None: ...
