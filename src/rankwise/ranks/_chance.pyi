import numpy as np
import numpy.typing as npt

def harmonic(n: npt.NDArray[np.float64], out: npt.NDArray[np.float64]) -> None: ...
def harmonic2(n: npt.NDArray[np.float64], out: npt.NDArray[np.float64]) -> None: ...
def harmonic_difference(
    a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> None: ...
def expected_reciprocal(
    optimistic: npt.NDArray[np.float64], pessimistic: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> None: ...
def expected_hit(
    optimistic: npt.NDArray[np.float64],
    pessimistic: npt.NDArray[np.float64],
    k: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
) -> None: ...
def mean_power(
    n: npt.NDArray[np.float64], s: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> None: ...
def expected_discount(
    optimistic: npt.NDArray[np.float64],
    pessimistic: npt.NDArray[np.float64],
    k: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
) -> None: ...
