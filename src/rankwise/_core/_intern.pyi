import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

def intern(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    hash_mask: int = ...,
    stop: npt.NDArray[np.uint8] | None = ...,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8], npt.NDArray[np.int64]] | None: ...
@disjoint_base
class StringIndex:
    def find(
        self,
        other_data: npt.NDArray[np.uint8],
        other_offsets: npt.NDArray[np.int64],
        out: npt.NDArray[np.int64],
        start: int,
        end: int,
        stop: npt.NDArray[np.uint8] | None = ...,
    ) -> None: ...

def index(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    hash_mask: int = ...,
    stop: npt.NDArray[np.uint8] | None = ...,
) -> StringIndex | None: ...
def byte_ranks(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> npt.NDArray[np.int64] | None: ...
def first_seen(
    indices: npt.NDArray[np.integer],
    entry_codes: npt.NDArray[np.int64],
    n_codes: int,
    stop: npt.NDArray[np.uint8] | None = ...,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None: ...
def take(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    codes: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]: ...
