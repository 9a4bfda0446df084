import numpy as np
import numpy.typing as npt

def first_duplicate(
    docs: npt.NDArray[np.int64], order: npt.NDArray[np.int64], indptr: npt.NDArray[np.int64], g_start: int,
    g_stop: int, stop: npt.NDArray[np.uint8] | None = ...,
) -> tuple[tuple[int, int], int]: ...
def group_codes(
    codes: npt.NDArray[np.int64], n_codes: int, stop: npt.NDArray[np.uint8] | None = ...,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None: ...
