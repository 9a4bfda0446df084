import numpy as np
import numpy.typing as npt

def run_starts(ids: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]: ...
def first_duplicate_grouped(
    docs: npt.NDArray[np.int64], order: npt.NDArray[np.int64], indptr: npt.NDArray[np.int64], g_start: int,
    g_stop: int,
) -> tuple[tuple[int, int], int]: ...
def group_by_query(
    ids: npt.NDArray[np.int64], wide: bool = False,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], int]: ...
def decimal_keys(
    ids: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.uint64], npt.NDArray[np.int8]]: ...
