import numpy as np
import numpy.typing as npt

def run_starts(
    ids: npt.NDArray[np.int64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> npt.NDArray[np.int64] | None: ...
def first_duplicate_grouped(
    docs: npt.NDArray[np.int64], order: npt.NDArray[np.int64], indptr: npt.NDArray[np.int64], g_start: int,
    g_stop: int, stop: npt.NDArray[np.uint8] | None = ...,
) -> tuple[tuple[int, int], int]: ...
def group_by_query(
    ids: npt.NDArray[np.int64], wide: bool = False, stop: npt.NDArray[np.uint8] | None = ...,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], int] | None: ...
def decimal_keys(
    ids: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.uint64], npt.NDArray[np.int8]]: ...
