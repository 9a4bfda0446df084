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

def judge(
    doc_codes: npt.NDArray[np.int64],
    doc_to_qrels: npt.NDArray[np.int64],
    indptr: npt.NDArray[np.int64],
    qrels_query: npt.NDArray[np.int64],
    qrels_indptr: npt.NDArray[np.int64],
    qrels_doc: npt.NDArray[np.int64],
    qrels_rel: npt.NDArray[np.float64],
    q_start: int,
    q_stop: int,
    rels: npt.NDArray[np.float64],
) -> None: ...
def rank_relevance(
    scores: npt.NDArray[np.float64],
    keys: npt.NDArray[np.int64],
    rels: npt.NDArray[np.float64],
    indptr: npt.NDArray[np.int64],
    q_start: int,
    q_stop: int,
    ranked: npt.NDArray[np.float64],
    ranked_scores: npt.NDArray[np.float64],
) -> None: ...
def trec_measures(
    ranked: npt.NDArray[np.float64],
    ranked_scores: npt.NDArray[np.float64],
    indptr: npt.NDArray[np.int64],
    num_ret: npt.NDArray[np.int64],
    num_rel: npt.NDArray[np.float64],
    num_nonrel: npt.NDArray[np.float64],
    kinds: npt.NDArray[np.int32],
    params: npt.NDArray[np.float64],
    ideal: npt.NDArray[np.float64],
    gains: npt.NDArray[np.float64],
    gain_row: npt.NDArray[np.int64],
    level: float,
    expected: bool,
    q_start: int,
    q_stop: int,
    out: npt.NDArray[np.float64],
) -> None: ...
