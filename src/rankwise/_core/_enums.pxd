# The enumerations that Python validation and the kernels share. Declared here, once: the
# kernels cimport them as C constants, and _enums.pyx exposes them to Python as IntEnums, so
# validation never imports a domain's kernel to name a metric, a tie policy or an error.
# The members of all of them are C constants of one namespace: TrecMeasure's carry a
# TREC_ prefix because trec_eval's RPREC, RECALL and NDCG would clash with Metric's.

cpdef enum Metric:
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


# A metric's definition where libraries differ (lists/names.py: MetricSpec.denom and .ideal).
cpdef enum Variant:
    DEFAULT = 0     # trec_eval's: AP and recall divide by R, nDCG's ideal is cut at k
    BY_MIN = 1      # AP, recall: divide by min(R, k)
    BY_HITS = 2     # AP: divide by the relevant items placed within k
    IDEAL_ALL = 3   # nDCG: the ideal DCG of every relevant label, not cut at k


cpdef enum Ties:
    EXPECTED = 0
    OPTIMISTIC = 1
    PESSIMISTIC = 2
    STABLE = 3
    TREC = 4


# trec_eval's measures (trec/names.py maps their names here; trec/_trec.pyx computes them).
cpdef enum TrecMeasure:
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


# How trec/_trec.pyx breaks ties between equal scores after labels (when asked).
cpdef enum TieKey:
    TIE_POSITION = 0   # the row's position: input order first
    TIE_BYTES = 1      # docs are codes of a string table: their bytes descending, as trec_eval orders
    TIE_DECIMAL = 2    # docs are integer ids: their decimal text descending, as trec_eval orders


# What is wrong with a malformed line of a TREC file (trec/_text.pyx finds it, trec/io.py words it).
cpdef enum LineErrorKind:
    TOO_FEW = 1
    TOO_MANY = 2
    NOT_NUMBER = 3
    NOT_FINITE = 4
