import enum

import numpy as np
import numpy.typing as npt

class TrecMeasure(enum.IntEnum):
    NUM_RET = 0
    NUM_REL = 1
    NUM_REL_RET = 2
    MAP = 3
    GM_MAP = 4
    RPREC = 5
    BPREF = 6
    RECIP_RANK = 7
    IPREC = 8
    P = 9
    RECALL = 10
    INFAP = 11
    GM_BPREF = 12
    RPREC_MULT = 13
    UTILITY = 14
    NDCG = 15
    NDCG_CUT = 16
    MAP_CUT = 17
    RELATIVE_P = 18
    SUCCESS = 19
    SET_P = 20
    SET_RELATIVE_P = 21
    SET_RECALL = 22
    SET_MAP = 23
    SET_F = 24
    NUM_NONREL_JUDGED_RET = 25

class TieKey(enum.IntEnum):
    TIE_POSITION = 0
    TIE_MAPPED = 1
    TIE_DECIMAL = 2

def judge(
    docs: npt.NDArray[np.int64],
    doc_map: npt.NDArray[np.int64],
    run_start: npt.NDArray[np.int64],
    run_stop: npt.NDArray[np.int64],
    qrels_query: npt.NDArray[np.int64],
    qrels_indptr: npt.NDArray[np.int64],
    qrels_keys: npt.NDArray[np.int64],
    qrels_rel: npt.NDArray[np.float64],
    q_start: int,
    q_stop: int,
    rels: npt.NDArray[np.float64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
def rank_judged(
    scores: npt.NDArray[np.float64],
    docs: npt.NDArray[np.int64],
    doc_map: npt.NDArray[np.int64],
    tie: int,
    tie_map: npt.NDArray[np.int64],
    label_order: int,
    run_start: npt.NDArray[np.int64],
    run_stop: npt.NDArray[np.int64],
    qrels_query: npt.NDArray[np.int64],
    qrels_indptr: npt.NDArray[np.int64],
    qrels_keys: npt.NDArray[np.int64],
    qrels_rel: npt.NDArray[np.float64],
    entry_start: npt.NDArray[np.int64],
    q_start: int,
    q_stop: int,
    entry_rank: npt.NDArray[np.int64],
    entry_rel: npt.NDArray[np.float64],
    n_entries: npt.NDArray[np.int64],
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
    entry_rel: npt.NDArray[np.float64],
    entry_rank: npt.NDArray[np.int64],
    scores: npt.NDArray[np.float64],
    entry_start: npt.NDArray[np.int64],
    n_entries: npt.NDArray[np.int64],
    num_ret: npt.NDArray[np.int64],
    num_rel: npt.NDArray[np.float64],
    num_nonrel: npt.NDArray[np.float64],
    kinds: npt.NDArray[np.int32],
    params: npt.NDArray[np.float64],
    cutoffs: npt.NDArray[np.int64],
    ideal: npt.NDArray[np.float64],
    ideal_scale: npt.NDArray[np.int32],
    gain_levels: npt.NDArray[np.int64],
    gain_values: npt.NDArray[np.float64],
    gain_start: npt.NDArray[np.int64],
    level: float,
    expected: bool,
    q_start: int,
    q_stop: int,
    out: npt.NDArray[np.float64],
    stop: npt.NDArray[np.uint8] | None = ...,
) -> None: ...
