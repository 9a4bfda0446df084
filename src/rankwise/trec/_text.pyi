import enum
import mmap

import numpy as np
import numpy.typing as npt

class LineErrorKind(enum.IntEnum):
    TOO_FEW = 1
    TOO_MANY = 2
    NOT_NUMBER = 3
    NOT_FINITE = 4

class LineError(ValueError): ...

def intern(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    hash_mask: int = ...,
    stop: npt.NDArray[np.uint8] | None = ...,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8], npt.NDArray[np.int64]] | None: ...
def lookup(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    other_data: npt.NDArray[np.uint8],
    other_offsets: npt.NDArray[np.int64],
    hash_mask: int = ...,
    stop: npt.NDArray[np.uint8] | None = ...,
) -> npt.NDArray[np.int64] | None: ...
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
def byte_ranks(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> npt.NDArray[np.int64] | None: ...
def format_rows(
    query_data: npt.NDArray[np.uint8],
    query_offsets: npt.NDArray[np.int64],
    query_codes: npt.NDArray[np.int64],
    doc_data: npt.NDArray[np.uint8],
    doc_offsets: npt.NDArray[np.int64],
    doc_codes: npt.NDArray[np.int64],
    values: npt.NDArray[np.float64],
    ranks: npt.NDArray[np.int64],
    name: bytes,
    start: int,
    stop: int,
) -> bytes: ...
