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

class Ties(enum.IntEnum):
    EXPECTED = 0
    OPTIMISTIC = 1
    PESSIMISTIC = 2
    STABLE = 3
    TREC = 4
