import numpy as np
import numpy.typing as npt

N_DIGITS: int
DIGIT_BITS: int

def exact_sums(
    values: npt.NDArray[np.float64], r_start: int, r_stop: int, digits: npt.NDArray[np.int64],
    specials: npt.NDArray[np.int64], stop: npt.NDArray[np.uint8] | None = ...,
) -> bool: ...
