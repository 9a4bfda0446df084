import numpy as np
import numpy.typing as npt

# The tuples' arrays, in order, are listed in each kernel's docstring.
_Arrays = tuple[np.ndarray, ...]

def judge(
    join: _Arrays,
    q_start: int,
    q_stop: int,
    rels: npt.NDArray[np.float64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
def rank_judged(
    scores: npt.NDArray[np.float64],
    join: _Arrays,
    order: tuple[int, npt.NDArray[np.uint8], npt.NDArray[np.int64], int],
    entries: _Arrays,
    q_start: int,
    q_stop: int,
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
def rank_relevance(
    scores: npt.NDArray[np.float64],
    rels: npt.NDArray[np.float64],
    indptr: npt.NDArray[np.int64],
    q_start: int,
    q_stop: int,
    ranked: npt.NDArray[np.float64],
    ranked_scores: npt.NDArray[np.float64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
def judgement_counts(
    indptr: npt.NDArray[np.int64],
    values: npt.NDArray[np.float64],
    level: float,
    g_start: int,
    g_stop: int,
    num_rel: npt.NDArray[np.float64],
    num_nonrel: npt.NDArray[np.float64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
def ideal_dcg(
    indptr: npt.NDArray[np.int64],
    gains: npt.NDArray[np.float64],
    cutoffs: npt.NDArray[np.int64],
    g_start: int,
    g_stop: int,
    out: npt.NDArray[np.float64],
    scale: npt.NDArray[np.int32],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
def trec_measures(
    entries: _Arrays,
    counts: _Arrays,
    columns: _Arrays,
    level: float,
    expected: bool,
    q_start: int,
    q_stop: int,
    out: npt.NDArray[np.float64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
