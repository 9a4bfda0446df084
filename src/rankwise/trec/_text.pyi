import mmap

import numpy as np
import numpy.typing as npt

class LineError(ValueError): ...

def parse_numbers(
    data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]: ...
def parse_lines(
    buf: bytes | mmap.mmap | npt.NDArray[np.uint8],
    run: bool,
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None | tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.uint8],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    int,
    int,
]: ...
def first_invalid_utf8(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> int: ...
def occurrence_ranks(codes: npt.NDArray[np.int64], n_codes: int) -> npt.NDArray[np.int64]: ...
def format_rows(
    queries: tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]],
    docs: tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]],
    rows: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]],
    name: bytes,
    start: int,
    stop: int,
) -> bytes: ...
