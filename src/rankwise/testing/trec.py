"""A plain, slow, independent pure-Python model of trec_eval 10.0 (stdlib only).

Written from a reading of trec_eval's C sources (form_res_rels.c and the m_*.c measure
files), not from rankwise: qrels and runs are ``{qid: {docno: value}}`` dicts, each
query is ranked, turned into a list of relevance values and measured one measure at a
time, with loops that follow the definitions as trec_eval states them.

Conventions (trec_eval's):

- ranking: score descending, ties by docno descending compared byte-wise; ``depth``
  (``-M``) keeps the top ``depth`` documents after that sort;
- a retrieved document absent from the query's qrels has relevance NONPOOL (-1); one
  judged with a negative value is UNJUDGED (-2, "in the pool, not judged");
- R (num_rel) counts judged documents with relevance >= level; the per-level counts
  used by nDCG and bpref count every judged document with relevance >= 0, retrieved or
  not;
- without ``complete`` the evaluated queries are those in both qrels and run; with it,
  every qrels query, and those the run lacks are measured on a ranking of one document
  absent from the qrels (trec_eval's "bogus ranking"), then num_ret and the measure
  named exactly ``utility`` are set to 0: so they score 0 but for num_rel, utility with
  explicit coefficients and ndcg with a gain for level -1;
- summary: arithmetic mean over evaluated queries, sums for the num_* counts, geometric
  mean with a 1e-5 floor for gm_map and gm_bpref; but with ``complete`` the num_rel
  summary counts every judgement > 0 of the qrels, whatever the level (m_num_rel.c).

Where trec_eval 10.0 and 9.x differ, this follows 10.0: iprec_at_recall and 11pt_avg
turn a recall fraction p into a count of relevant documents with lround(p * R)
(9.x: (long)(p * R + 0.9)); Rprec_mult keeps (long)(p * R + 0.9) in both.

Where trec_eval's behaviour is undefined or accidental, this model takes the plain
reading: nDCG's ideal ordering sorts gains truly (trec_eval's comparator truncates gain
differences to int, which orders integral gains truly too; rankwise reproduces the rest, checked
against the binary in test_trec_differential.py), and a query whose judgements are all negative
has no levels.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

NONPOOL = -1
UNJUDGED = -2
MIN_GEO_MEAN = 1e-5
INFAP_EPSILON = 1e-5

# trec_eval's measure table (measures.c), supported measures only, in print order.
TABLE = [
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility",
    "11pt_avg", "ndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "unj",
]
UNSUPPORTED = ["relstring", "binG", "G", "ndcg_rel", "Rndcg", "rbp", "rbp_resid", "dcg", "ideal_dcg"]

NICKNAMES = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"],
    "all_trec": list(TABLE),
}

_LONG_CUTS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
_RECALL_POINTS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
# Parameter kinds: "none"; "long" cutoffs (one printed value each, name_%ld);
# "double" cutoffs (one value each, name_%3.2f); "params" (one value, name_<raw text>);
# "pairs" (nDCG gains, one value, name_<raw text>).
KIND: dict[str, tuple[str, Any]] = {
    "iprec_at_recall": ("double", _RECALL_POINTS),
    "P": ("long", _LONG_CUTS), "recall": ("long", _LONG_CUTS), "ndcg_cut": ("long", _LONG_CUTS),
    "map_cut": ("long", _LONG_CUTS), "relative_P": ("long", _LONG_CUTS), "success": ("long", [1, 5, 10]),
    "Rprec_mult": ("double", [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0]),
    "utility": ("params", [1.0, -1.0, 0.0, 0.0]), "11pt_avg": ("params", _RECALL_POINTS),
    "set_F": ("params", [1.0]), "ndcg": ("pairs", []), "unj": ("long", [5, 10, 20]),
}
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
GEOMETRIC = {"gm_map", "gm_bpref"}


@dataclass(frozen=True)
class Spec:
    root: str
    name: str
    value: Any = None          # the cutoff (long/double) or the parameter list / gain pairs


def _c_atol(text: str) -> int:
    """C's atol: optional sign, then leading digits; anything else stops it."""
    text = text.strip()
    sign, i = 1, 0
    if text[:1] in "+-":
        sign, i = (-1 if text[0] == "-" else 1), 1
    digits = ""
    while i < len(text) and text[i].isdigit():
        digits += text[i]
        i += 1
    return sign * int(digits or "0")


def _expand(root: str, raw: str | None) -> list[Spec]:
    kind, default = KIND.get(root, ("none", None))
    if kind == "none":
        if raw is not None:
            raise ValueError(f"{root} takes no parameters")
        return [Spec(root, root)]
    if kind == "long":
        cuts = sorted(_c_atol(p) for p in raw.split(",")) if raw is not None else list(default)
        return [Spec(root, f"{root}_{k}", k) for k in cuts]
    if kind == "double":
        cuts = sorted(float(p) for p in raw.split(",")) if raw is not None else list(default)
        return [Spec(root, f"{root}_{c:3.2f}", c) for c in cuts]
    if kind == "params":
        values = [float(p) for p in raw.split(",")] if raw is not None else list(default)
        return [Spec(root, root if raw is None else f"{root}_{raw}", tuple(values))]
    pairs = []
    if raw is not None:
        for part in raw.split(","):
            level, gain = part.split("=")
            pairs.append((int(level), float(gain)))
    return [Spec(root, root if raw is None else f"{root}_{raw}", tuple(pairs))]


def parse(measures) -> list[Spec]:
    """trec_eval measure names (``P.5,10``, ``P_10``, ``ndcg.1=3``, nicknames) -> specs, print order."""
    if isinstance(measures, str):
        measures = [measures]
    out: dict[str, Spec] = {}
    for text in measures:
        if text in NICKNAMES:
            specs = [s for root in NICKNAMES[text] for s in _expand(root, None)]
        elif text in TABLE:
            specs = _expand(text, None)
        else:
            root = next((r for r in sorted(TABLE, key=len, reverse=True)
                         if text.startswith(r + ".") or (text.startswith(r + "_") and KIND.get(r, ("",))[0] == "long")),
                        None)
            if root is None:
                raise ValueError(f"unknown measure {text!r}")
            specs = _expand(root, text[len(root) + 1:])
        for s in specs:
            out.setdefault(s.name, s)
    position = {root: i for i, root in enumerate(TABLE)}

    def key(s: Spec):
        v = s.value if isinstance(s.value, (int, float)) else 0
        return (position[s.root], v)

    return sorted(out.values(), key=key)


# --------------------------------------------------------------------------- ranking

def _docno_key(doc: str) -> bytes:
    return doc.encode("utf-8")


def rank(run_q: dict, qrels_q: dict, ties: str = "trec") -> list:
    """Docnos of one query in evaluation order under a tie policy (not "expected")."""
    docs = list(run_q)
    position = {d: i for i, d in enumerate(docs)}

    def label(d):
        v = qrels_q.get(d)
        return 0 if v is None or v < 0 else v

    def compare(a, b):
        sa, sb = run_q[a], run_q[b]
        if sa != sb:
            return -1 if sa > sb else 1
        if ties == "stable":
            return position[a] - position[b]
        if ties in ("optimistic", "pessimistic"):
            la, lb = label(a), label(b)
            if la != lb:
                higher_first = -1 if la > lb else 1
                return higher_first if ties == "optimistic" else -higher_first
        elif ties != "trec":
            raise ValueError(ties)
        ka, kb = _docno_key(a), _docno_key(b)
        return -1 if ka > kb else (1 if ka < kb else 0)

    return sorted(docs, key=functools.cmp_to_key(compare))


def relevance_list(ranking: list, qrels_q: dict) -> list:
    out = []
    for d in ranking:
        if d not in qrels_q:
            out.append(NONPOOL)
        elif qrels_q[d] < 0:
            out.append(UNJUDGED)
        else:
            out.append(qrels_q[d])
    return out


# --------------------------------------------------------------------------- measures

@dataclass
class Query:
    """One query's retrieved relevance values (already cut at depth) and its judgements."""
    rels: list
    judged: dict                   # docno -> relevance, the query's qrels (may be empty)
    level: int = 1
    levels: dict = field(init=False)   # relevance value (>= 0) -> number of judged docs
    num_rel: int = field(init=False)

    def __post_init__(self):
        self.levels = {}
        for v in self.judged.values():
            if v >= 0:
                self.levels[v] = self.levels.get(v, 0) + 1
        self.num_rel = sum(n for v, n in self.levels.items() if v >= self.level)
        self._prefix = [0]                 # _prefix[k]: relevant documents in the top k
        for r in self.rels:
            self._prefix.append(self._prefix[-1] + (1 if self.is_rel(r) else 0))

    def is_rel(self, r) -> bool:
        return r >= 0 and r >= self.level

    def rel_in_top(self, k: int) -> int:
        return self._prefix[min(k, len(self.rels))]

    @property
    def num_ret(self) -> int:
        return len(self.rels)

    @property
    def num_rel_ret(self) -> int:
        return self.rel_in_top(len(self.rels))


def _lround(x: float) -> int:
    """C's lround for x >= 0: halves go away from zero."""
    f = math.floor(x)
    return int(f) + 1 if x - f >= 0.5 else int(f)


def ap(q: Query, cut=None) -> float:
    if q.num_rel == 0:
        return 0.0
    total, found = 0.0, 0
    for i, r in enumerate(q.rels[:cut] if cut is not None else q.rels):
        if q.is_rel(r):
            found += 1
            total += found / (i + 1)
    return total / q.num_rel


def precision_at(q: Query, k: int) -> float:
    return q.rel_in_top(k) / k


def iprec(q: Query, p: float) -> float:
    """Interpolated precision at recall fraction p: the best precision at or after the rank
    where the lround(p * R)-th relevant document is retrieved (recall 0: after the first)."""
    need = _lround(p * q.num_rel)
    if q.num_ret == 0:
        # An empty ranking (-J, -M 0): 0 / 0 retrieved where the point needs no relevant
        # document, NaN with the sign bit set as x86 makes it (printed -nan).
        return -math.nan if need <= 0 else 0.0
    if need > q.num_rel_ret or q.num_rel_ret == 0:
        return 0.0
    need = max(need, 1)
    found, start = 0, 0  # start is set: need <= num_rel_ret relevant documents are ranked
    for i, r in enumerate(q.rels):
        if q.is_rel(r):
            found += 1
            if found == need:
                start = i + 1
                break
    return max(q.rel_in_top(k) / k for k in range(start, q.num_ret + 1))


def eleven_point(q: Query, points: tuple) -> float:
    """m_11pt_avg.c's loop, literally: the points as given (unsorted, repeated), walked from
    the last while the relevant documents are met from the bottom of the ranking."""
    cutoffs = [int(math.copysign(_lround(abs(p * q.num_rel)), p)) for p in points]
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > q.num_rel_ret:
        current -= 1
    best = q.num_rel_ret / q.num_ret if q.num_ret else -math.nan
    rel_so_far, total, i = q.num_rel_ret, 0.0, q.num_ret
    while i > 0 and rel_so_far > 0:
        best = max(best, rel_so_far / i)
        if q.is_rel(q.rels[i - 1]):
            while current >= 0 and rel_so_far == cutoffs[current]:
                total += best
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        total += best
        current -= 1
    return total / len(points)


def bpref(q: Query) -> float:
    if q.num_rel == 0:
        return 0.0
    num_nonrel = sum(n for v, n in q.levels.items() if v < q.level)
    total, nonrel_above = 0.0, 0
    for r in q.rels:
        if r < 0:
            continue                         # not in the pool, or pooled but unjudged
        if q.is_rel(r):
            if nonrel_above == 0:
                total += 1.0
            else:
                total += 1.0 - min(nonrel_above, q.num_rel) / min(num_nonrel, q.num_rel)
        else:
            nonrel_above += 1
    return total / q.num_rel


def inf_ap(q: Query) -> float:
    if q.num_rel == 0:
        return 0.0
    total = 0.0
    rel_above = nonrel_above = unjudged_above = 0
    for j, r in enumerate(q.rels):
        if r == NONPOOL:
            continue
        if r == UNJUDGED:
            unjudged_above += 1
            continue
        if not q.is_rel(r):
            nonrel_above += 1
            continue
        if j == 0:
            total += 1.0
        else:
            # j documents above; of them rel_above + nonrel_above + unjudged_above are in the
            # pool; the judged share is estimated relevant at (rel + eps) / (rel + nonrel + 2 eps).
            in_pool = rel_above + nonrel_above + unjudged_above
            judged_rate = (rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)
            total += 1.0 / (j + 1) + (j / (j + 1)) * (in_pool / j) * judged_rate
        rel_above += 1
    return total / q.num_rel


def rprec_mult(q: Query, p: float) -> float:
    k = int(p * q.num_rel + 0.9)
    if k <= 0:
        return 0.0
    return q.rel_in_top(k) / k


def _gain_of(spec_pairs: tuple):
    # trec_eval's get_gain: a custom gain for the level, even NONPOOL (-1) and UNJUDGED (-2);
    # else the level itself for judged documents, nothing for the others.
    custom = dict(spec_pairs)
    return lambda r: custom[r] if r in custom else (float(r) if r >= 0 else 0.0)


def ndcg(q: Query, pairs: tuple) -> float:
    gain = _gain_of(pairs)
    dcg = 0.0
    for i, r in enumerate(q.rels):
        g = gain(r)
        if g != 0:
            dcg += g / math.log2(i + 2)
    ideal_gains = sorted((gain(v) for v, n in q.levels.items() for _ in range(n)), reverse=True)
    ideal = 0.0
    for i, g in enumerate(x for x in ideal_gains if x > 0):
        ideal += g / math.log2(i + 2)
    return dcg / ideal if ideal > 0 else 0.0


def ndcg_cut(q: Query, k: int) -> float:
    dcg = 0.0
    for i, r in enumerate(q.rels[:k]):
        if r > 0:
            dcg += r / math.log2(i + 2)
    ideal_gains = sorted((v for v, n in q.levels.items() if v > 0 for _ in range(n)), reverse=True)[:k]
    ideal = 0.0
    for i, g in enumerate(ideal_gains):
        ideal += g / math.log2(i + 2)
    return dcg / ideal if ideal > 0 else 0.0


def value(spec: Spec, q: Query) -> float:
    """One measure on one query with at least one retrieved document."""
    root, a = spec.root, spec.value
    R, ret, hit = q.num_rel, q.num_ret, q.num_rel_ret
    if root == "num_ret":
        return float(ret)
    if root == "num_rel":
        return float(R)
    if root == "num_rel_ret":
        return float(hit)
    if root in ("map", "gm_map"):
        return ap(q)
    if root == "Rprec":
        k = min(ret, R)
        return q.rel_in_top(k) / R if k else 0.0
    if root in ("bpref", "gm_bpref"):
        return bpref(q)
    if root == "recip_rank":
        return next((1.0 / (i + 1) for i, r in enumerate(q.rels) if q.is_rel(r)), 0.0)
    if root == "iprec_at_recall":
        return iprec(q, a)
    if root == "P":
        return precision_at(q, a)
    if root == "recall":
        return q.rel_in_top(a) / R if R else 0.0
    if root == "infAP":
        return inf_ap(q)
    if root == "Rprec_mult":
        return rprec_mult(q, a)
    if root == "utility":
        c_rel_ret, c_nonrel_ret, c_rel_missed, c_rest = a
        # the fourth term uses the collection size, 0 unless trec_eval gets -N
        return (c_rel_ret * hit + c_nonrel_ret * (ret - hit) + c_rel_missed * (R - hit)
                + c_rest * (0 + hit - ret - R))
    if root == "11pt_avg":
        return eleven_point(q, a)
    if root == "ndcg":
        return ndcg(q, a)
    if root == "ndcg_cut":
        return ndcg_cut(q, a)
    if root == "map_cut":
        return ap(q, a)
    if root == "relative_P":
        return q.rel_in_top(a) / min(a, R) if R else 0.0
    if root == "success":
        return 1.0 if q.rel_in_top(a) else 0.0
    if root.startswith("set_"):
        return set_value(root, a, R, ret, hit)
    if root == "num_nonrel_judged_ret":
        return float(sum(1 for r in q.rels if r >= 0 and not q.is_rel(r)))
    if root == "unj":
        # m_unjudged.c: not judged >= 0 within the top a; ranks beyond the list count as judged.
        return sum(1 for r in q.rels[:a] if r < 0) / a
    raise ValueError(root)


def set_value(root: str, a, R: int, ret: int, hit: int) -> float:
    """The set measures: from the counts of relevant, retrieved and relevant retrieved alone."""
    if root == "set_P":
        return hit / ret if ret else 0.0
    if root == "set_relative_P":
        return hit / min(ret, R) if ret and R else 0.0
    if root == "set_recall":
        return hit / R if R else 0.0
    if root == "set_map":
        return hit * hit / (ret * R) if ret and R else 0.0
    if root == "set_F":
        if not hit:
            return 0.0
        x = a[0]
        precision, recall = hit / ret, hit / R
        return (x + 1.0) * precision * recall / (x * precision + recall)
    raise ValueError(root)


def query_values(rels: list, judged: dict, specs, level: int = 1, judged_only: bool = False) -> dict:
    """name -> value for one query given its (cut) relevance list; empty list = missing query.

    ``judged_only`` (-J): the list holds the judged documents only, and a missing query's
    stand-in ranking of one unjudged document is emptied too: an empty list is evaluated.
    """
    q = Query(list(rels), judged, level)
    out = {}
    for s in specs:
        if s.root in ("runid", "num_q"):
            continue
        if not rels and not judged_only:
            # trec_eval's bogus ranking: one document that is not in the qrels
            # (unj too: trec_eval 10.0 prints 0 for it, as if its stand-in were judged)
            out[s.name] = 0.0 if s.root in ("num_ret", "unj") or s.name == "utility" else value(s, Query([NONPOOL],
                                                                                          judged, level))
        else:
            out[s.name] = value(s, q)
    return out


# --------------------------------------------------------------------------- evaluation

@dataclass
class Result:
    names: list            # printed names (no runid / num_q), print order
    specs: list
    query_ids: list        # byte order
    per_query: dict        # qid -> name -> value (gm_*: the per-query AP / bpref)
    summary: dict          # name -> value (counts as int)
    num_q: int


def summarize(specs, per_query: dict, complete_qrels: dict | None = None) -> dict:
    """The ``all`` values; ``complete_qrels``: the qrels, when ``complete`` (num_rel's quirk)."""
    n = len(per_query)
    out = {}
    for s in specs:
        if s.root in ("runid", "num_q"):
            continue
        column = [per_query[q][s.name] for q in per_query]
        if s.root in COUNTS:
            # an int, except for the fractional expected counts of ties="expected" with a depth
            total = math.fsum(column)
            out[s.name] = int(total) if total == int(total) else total
        elif not n:
            out[s.name] = 0.0
        elif s.root in GEOMETRIC:
            out[s.name] = math.exp(sum(math.log(max(v, MIN_GEO_MEAN)) for v in column) / n)
        else:
            out[s.name] = sum(column) / n
    if complete_qrels is not None and "num_rel" in out:
        out["num_rel"] = sum(1 for judged in complete_qrels.values() for v in judged.values() if v > 0)
    return out


def evaluate(qrels: dict, run: dict, measures=("official",), *, complete=False, relevance_level=1,
             depth=None, ties="trec", judged_only=False) -> Result:
    specs = parse(measures)
    if complete:
        qids = list(qrels)
    else:
        qids = [q for q in qrels if q in run]
    per_query = {}
    for qid in sorted(qids, key=_docno_key):
        judged = qrels[qid]
        run_q = run.get(qid, {})
        rels = relevance_list(rank(run_q, judged, ties), judged)
        if depth is not None:
            rels = rels[:depth]
        if judged_only:
            rels = [r for r in rels if r >= 0]
        per_query[qid] = query_values(rels, judged, specs, relevance_level, judged_only)
    names = [s.name for s in specs if s.root not in ("runid", "num_q")]
    summary = summarize(specs, per_query, qrels if complete else None)
    return Result(names, specs, list(per_query), per_query, summary, len(per_query))


def format_line(name: str, qid: str, value, count: bool) -> str:
    text = str(int(value)) if count else f"{value:.4f}"
    return f"{name:<22}\t{qid}\t{text}"


# --------------------------------------------------------------------------- random cases

# Ids whose byte order differs from numeric order ("9" > "10"), case, non-ASCII (UTF-8 byte
# order), and strings that look like numbers.
DOC_POOL = ["9", "10", "100", "1", "09", "1e3", "3.0", "3", "-5", "a", "B", "b", "Z", "zz", "doc-1", "doc-10",
            "doc_2", "e", "\u00e9", "\u00df", "\u65e5\u672c", "\u65e5", "x\u00e9", "\u03a9", "d#1", "D1"]
QID_POOL = ["1", "2", "10", "9", "301", "3", "q\u00e9", "Q", "\u00fc", "t-7"]


def random_case(rng, *, n_queries=8, max_docs=14, score_values=None, all_negative=False,
                max_label=3):
    """Random qrels and run: graded labels with some negative (pooled, unjudged), heavy score
    ties, unretrieved relevant documents, queries with no relevant document, one-document
    queries, and queries only in the run or only in the qrels.

    ``score_values``: a callable rng -> score (default: a float rounded to 1 or 2 decimals).
    ``all_negative``: allow a qrels query whose judgements are all negative.
    """
    if score_values is None:
        def score_values(r):
            if r.random() < 0.7:
                return round(r.uniform(0.0, 1.0), 1)      # 11 values: heavy ties
            return round(r.uniform(-1.0, 1.0), 2)
    qids = rng.sample(QID_POOL, min(n_queries, len(QID_POOL)))
    kinds = ["both", "both"] + [rng.choice(["both", "both", "both", "qrels", "run"]) for _ in qids[2:]]
    labels = [0] * 4 + [1] * 3 + [2] * 2 + [3] + [-1]
    labels = [v for v in labels if v <= max_label]
    qrels, run = {}, {}
    for qid, kind in zip(qids, kinds, strict=True):
        if kind in ("both", "qrels"):
            judged = rng.sample(DOC_POOL, rng.choice([1, 2, rng.randint(1, 12), rng.randint(3, 20)]))
            style = rng.random()
            if style < 0.15:
                pick = [0, 0, -1]                     # no relevant document
            elif style < 0.2 and all_negative:
                pick = [-1]                           # nothing judged
            else:
                pick = labels
            qrels[qid] = {d: rng.choice(pick) for d in judged}
            if all(v < 0 for v in qrels[qid].values()) and not (all_negative and style < 0.2):
                qrels[qid][judged[0]] = 0
        if kind in ("both", "run"):
            n = rng.choice([1, 2, rng.randint(1, max_docs), rng.randint(1, max_docs)])
            judged = list(qrels.get(qid, {}))
            docs = rng.sample(judged, rng.randint(0, min(n, len(judged)))) + rng.sample(DOC_POOL, n)
            docs = list(dict.fromkeys(docs))[:n]
            if len(docs) >= 2 and rng.random() < 0.35:
                # "9" and "10" tied: byte order ("9" first) is not numeric order
                docs = ["9", "10"] + [d for d in docs if d not in ("9", "10")][:len(docs) - 2]
            rng.shuffle(docs)
            run[qid] = {d: score_values(rng) for d in docs}
            if "9" in run[qid] and "10" in run[qid]:
                run[qid]["9"] = run[qid]["10"]
    return qrels, run


# ---------------------------------------------------------------------------- reading files

_FIELD_SPACE = b" \t\n\v\f\r"       # C's isspace in the C locale


def _c_number(token: bytes) -> float | None:
    """strtod of the whole token: decimal forms, inf and nan through float(), hex through float.fromhex."""
    text = token.decode("ascii", errors="replace")
    if "_" in text or text.strip() != text:
        return None
    try:
        return float.fromhex(text) if text.lower().lstrip("+-").startswith("0x") else float(text)
    except ValueError:
        return None


def _quote(token: bytes) -> str:
    text = token.decode("utf-8", errors="backslashreplace")
    return f"'{text}'" if len(text) <= 60 else f"'{text[:57]}...'"


def _line_problem(fields: list[bytes], run: bool) -> tuple[str, float | None]:
    """(message tail, value): an empty tail for a good line."""
    layout = "qid Q0 docno rank score runid" if run else "qid iter docno rel"
    need = 6 if run else 4
    if len(fields) < need:
        what = f"at least 6 fields ({layout})" if run else f"4 fields ({layout})"
        return f"a {'run' if run else 'qrels'} line needs {what}, found {len(fields)}", None
    if not run and len(fields) > 4:
        return (f"a qrels line has exactly 4 fields ({layout}), found {len(fields)}; trec_eval rejects extra "
                "fields in qrels"), None
    token = fields[4 if run else 3]
    value = _c_number(token)
    what = "score" if run else "relevance"
    if value is None:
        return f"{what} {_quote(token)} is not a number", None
    if not run and not math.isfinite(value):
        return f"{what} {_quote(token)} is not a finite number", None
    return "", value


def read_trec(raw: bytes, run: bool, path: str = "file") -> tuple[list[tuple[str, str, float, int]], str | None]:
    """A qrels (``run=False``) or run file's rows ``(qid, docno, value, line)`` and runid, line by line.

    The reference for ``Qrels.read``/``Run.read``: the same rows, or a ValueError with the
    same message, checked in the same order (a NUL byte anywhere; a file of one line with
    a bare carriage return; the first malformed line; an empty file or one of comments
    only; the earliest id that is not UTF-8; the runid; the first docno repeated for a
    query). Numbers: the decimal and hexadecimal forms, ``inf`` and ``nan`` (as ``strtod``
    reads them; not ``nan(...)``).
    """
    if b"\0" in raw:
        nul_line = raw[:raw.index(b"\0")].count(b"\n") + 1
        raise ValueError(f"{path}, line {nul_line}: NUL byte; TREC files are plain text (is this file UTF-16 or "
                         "binary?)")
    if b"\n" not in raw and b"\r" in raw.rstrip():
        raise ValueError(f"{path}: lines end with a bare carriage return (\\r); use \\n or \\r\\n line endings")
    rows, name = [], b""
    for number, line in enumerate(raw.split(b"\n"), 1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        problem, value = _line_problem(fields, run)
        if problem:
            raise ValueError(f"{path}, line {number}: {problem}")
        rows.append((fields[0], fields[2], value, number))
        name = fields[5] if run else name
    kind = "run" if run else "qrels"
    if not raw:
        raise ValueError(f"{path}: no {kind} lines found: the file is empty")
    if not rows:
        raise ValueError(f"{path}: no {kind} lines found (only comments and blank lines)")
    return _checked_rows(rows, name, run, path)


def _checked_rows(rows: list[tuple[Any, ...]], name: bytes, run: bool,
                  path: str) -> tuple[list[tuple[str, str, float, int]], str | None]:
    problems = []
    for i, what in ((0, "query id"), (1, "docno")):
        for row in rows:
            try:
                row[i].decode("utf-8")
            except UnicodeDecodeError:
                problems.append((row[3], f"{path}, line {row[3]}: {what} {_quote(row[i])} is not valid UTF-8"))
                break
    if problems:
        raise ValueError(min(problems)[1])
    try:
        run_name = name.decode("utf-8") if run else None
    except UnicodeDecodeError:
        raise ValueError(f"{path}, line {rows[-1][3]}: runid {_quote(name)} is not valid UTF-8") from None
    seen: dict[tuple[bytes, bytes], int] = {}
    for q, d, _, line in rows:
        if (q, d) in seen:
            raise ValueError(f"{path} has document {d.decode()!r} twice for query {q.decode()!r} (lines "
                             f"{seen[q, d]} and {line}); trec_eval rejects duplicates")
        seen[q, d] = line
    return [(q.decode(), d.decode(), v, line) for q, d, v, line in rows], run_name
