import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from rankwise._core._enums import LineErrorKind

def parse_numbers(
    data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]: ...

@disjoint_base
class Parser:
    @property
    def rows(self) -> int: ...
    @property
    def lines(self) -> int: ...
    query_codes: npt.NDArray[np.int64]
    doc_codes: npt.NDArray[np.int64]
    values: npt.NDArray[np.float64]
    def __new__(cls, run: bool, max_pieces: int, subtopics: bool = ...) -> Parser: ...
    def split(self, block: bytes | bytearray | memoryview, n_pieces: int) -> int: ...
    def tokenize(self, first: int, end: int, stop: npt.NDArray[np.uint8] | None = ...) -> bool | None: ...
    def error(self) -> None | tuple[LineErrorKind, int, int, bytes]: ...
    def prepare(self) -> int: ...
    def reserve(self, rows: int, docs: int) -> None: ...
    def intern_docs(self, lo: int, hi: int, stop: npt.NDArray[np.uint8] | None = ...) -> bool | None: ...
    def commit(self) -> bytes | None: ...
    def finish(
        self,
    ) -> tuple[
        npt.NDArray[np.uint8],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.uint8],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.float64],
        npt.NDArray[np.int64],
    ]: ...

def invalid_utf8(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> npt.NDArray[np.bool_] | None: ...
def occurrence_ranks(codes: npt.NDArray[np.int64], n_codes: int) -> npt.NDArray[np.int64]: ...
def format_rows(
    queries: tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]],
    docs: tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]],
    rows: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]],
    name: bytes,
    start: int,
    stop: int,
) -> bytes: ...
