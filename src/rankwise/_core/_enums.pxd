# The enumerations that Python validation and the kernels share. Declared here, once: the
# kernels cimport them as C constants, and _enums.pyx exposes them to Python as IntEnums, so
# validation never imports a domain's kernel to name a metric or a tie policy.

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


cpdef enum Ties:
    EXPECTED = 0
    OPTIMISTIC = 1
    PESSIMISTIC = 2
    STABLE = 3
    TREC = 4
