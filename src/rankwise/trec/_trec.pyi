import numpy as np
import numpy.typing as npt

# _Join.arrays(): docs, doc_map, run_start, run_stop, qrels_query, qrels_indptr, qrels_keys, qrels_rel.
Join = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
]

def judge(
    join: Join,
    q_start: int,
    q_stop: int,
    rels: npt.NDArray[np.float64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
def rank_judged(
    scores: npt.NDArray[np.float64],
    join: Join,
    order: tuple[int, npt.NDArray[np.int64], int],
    entries: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]],
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
    entries: tuple[
        npt.NDArray[np.float64],
        npt.NDArray[np.int64],
        npt.NDArray[np.float64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
    ],
    counts: tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]],
    columns: tuple[
        npt.NDArray[np.int32],
        npt.NDArray[np.float64],
        npt.NDArray[np.int64],
        npt.NDArray[np.float64],
        npt.NDArray[np.int32],
        npt.NDArray[np.int64],
        npt.NDArray[np.float64],
        npt.NDArray[np.int64],
    ],
    level: float,
    expected: bool,
    q_start: int,
    q_stop: int,
    out: npt.NDArray[np.float64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
