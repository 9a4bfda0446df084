import enum

class Metric(enum.IntEnum):
    RR = 0
    AP = 1
    PRECISION = 2
    RECALL = 3
    RPREC = 4
    DCG = 5
    NDCG = 6
    HITS = 7
    ERR = 8
    RBP = 9
    F1 = 10

class Variant(enum.IntEnum):
    DEFAULT = 0
    BY_MIN = 1
    BY_HITS = 2
    IDEAL_ALL = 3

class Ties(enum.IntEnum):
    EXPECTED = 0
    OPTIMISTIC = 1
    PESSIMISTIC = 2
    STABLE = 3
    TREC = 4

class TrecMeasure(enum.IntEnum):
    TREC_NUM_RET = 0
    TREC_NUM_REL = 1
    TREC_NUM_REL_RET = 2
    TREC_MAP = 3
    TREC_GM_MAP = 4
    TREC_RPREC = 5
    TREC_BPREF = 6
    TREC_RECIP_RANK = 7
    TREC_IPREC = 8
    TREC_P = 9
    TREC_RECALL = 10
    TREC_INFAP = 11
    TREC_GM_BPREF = 12
    TREC_RPREC_MULT = 13
    TREC_UTILITY = 14
    TREC_NDCG = 15
    TREC_NDCG_CUT = 16
    TREC_MAP_CUT = 17
    TREC_RELATIVE_P = 18
    TREC_SUCCESS = 19
    TREC_SET_P = 20
    TREC_SET_RELATIVE_P = 21
    TREC_SET_RECALL = 22
    TREC_SET_MAP = 23
    TREC_SET_F = 24
    TREC_NUM_NONREL_JUDGED_RET = 25
    TREC_UNJ = 26
    TREC_JUDGED = 27

class TieKey(enum.IntEnum):
    TIE_POSITION = 0
    TIE_BYTES = 1
    TIE_DECIMAL = 2

class LineErrorKind(enum.IntEnum):
    TOO_FEW = 1
    TOO_MANY = 2
    NOT_NUMBER = 3
    NOT_FINITE = 4
