import numpy as np
import numpy.typing as npt

def decimal_keys(
    ids: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.uint64], npt.NDArray[np.int8]]: ...
