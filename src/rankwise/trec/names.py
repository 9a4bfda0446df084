"""trec_eval measure names: parameters, defaults, printed names and print order.

``P.5,10`` and ``P_10`` both name precision at cutoffs; ``all_trec``, ``official`` and
``set`` expand to trec_eval's measure sets. Measures come out in trec_eval's own order
(that of its measure table), whatever order they were asked in, as trec_eval prints them.
Parameters are accepted only where they mean to rankwise what they mean to trec_eval 10.0
(which reads them with C's atol and atof) and where its behaviour is defined; anything
else is a ValueError naming the measure, the parameter and the allowed form.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .._core._enums import Metric, TrecMeasure, Variant
from .._core.names import split_parameters, unknown_name
from ..lists.names import MetricSpec, parse_metric

__all__ = ["TrecSpec", "parse_trec_measures", "UNSUPPORTED"]

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_POINTS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class _Root:
    kind: TrecMeasure | None      # None: computed from other columns (11pt_avg) or a label
    params: str                   # "none", "cuts" (integers), "fractions" (sorted), "points" (as given),
                                  # "coefficients", "gains"
    default: tuple = ()


# trec_eval's measure table, in its print order (trec_eval 10.0, as its test outputs show).
_ROOTS = {
    "runid": _Root(None, "none"),
    "num_q": _Root(None, "none"),
    "num_ret": _Root(TrecMeasure.TREC_NUM_RET, "none"),
    "num_rel": _Root(TrecMeasure.TREC_NUM_REL, "none"),
    "num_rel_ret": _Root(TrecMeasure.TREC_NUM_REL_RET, "none"),
    "map": _Root(TrecMeasure.TREC_MAP, "none"),
    "gm_map": _Root(TrecMeasure.TREC_GM_MAP, "none"),
    "Rprec": _Root(TrecMeasure.TREC_RPREC, "none"),
    "bpref": _Root(TrecMeasure.TREC_BPREF, "none"),
    "recip_rank": _Root(TrecMeasure.TREC_RECIP_RANK, "none"),
    "iprec_at_recall": _Root(TrecMeasure.TREC_IPREC, "fractions", _RECALL_POINTS),
    "P": _Root(TrecMeasure.TREC_P, "cuts", _CUTS),
    "recall": _Root(TrecMeasure.TREC_RECALL, "cuts", _CUTS),
    "infAP": _Root(TrecMeasure.TREC_INFAP, "none"),
    "gm_bpref": _Root(TrecMeasure.TREC_GM_BPREF, "none"),
    "Rprec_mult": _Root(TrecMeasure.TREC_RPREC_MULT, "fractions", tuple(i / 5 for i in range(1, 11))),
    "utility": _Root(TrecMeasure.TREC_UTILITY, "coefficients", (1.0, -1.0, 0.0, 0.0)),
    "11pt_avg": _Root(None, "points", _RECALL_POINTS),
    "ndcg": _Root(TrecMeasure.TREC_NDCG, "gains"),
    "ndcg_cut": _Root(TrecMeasure.TREC_NDCG_CUT, "cuts", _CUTS),
    "map_cut": _Root(TrecMeasure.TREC_MAP_CUT, "cuts", _CUTS),
    "relative_P": _Root(TrecMeasure.TREC_RELATIVE_P, "cuts", _CUTS),
    "success": _Root(TrecMeasure.TREC_SUCCESS, "cuts", (1, 5, 10)),
    "set_P": _Root(TrecMeasure.TREC_SET_P, "none"),
    "set_relative_P": _Root(TrecMeasure.TREC_SET_RELATIVE_P, "none"),
    "set_recall": _Root(TrecMeasure.TREC_SET_RECALL, "none"),
    "set_map": _Root(TrecMeasure.TREC_SET_MAP, "none"),
    "set_F": _Root(TrecMeasure.TREC_SET_F, "coefficients", (1.0,)),
    "num_nonrel_judged_ret": _Root(TrecMeasure.TREC_NUM_NONREL_JUDGED_RET, "none"),
    "unj": _Root(TrecMeasure.TREC_UNJ, "cuts", (5, 10, 20)),
    # ir_measures' Judged@k, not trec_eval's: outside all_trec, and it needs a cutoff.
    "Judged": _Root(TrecMeasure.TREC_JUDGED, "cuts"),
}
_ORDER = {root: i for i, root in enumerate(_ROOTS)}
_LOWER = {root.lower(): root for root in _ROOTS}

#: trec_eval measures rankwise does not compute, and why.
UNSUPPORTED = {
    "relstring": "a string of the first relevance values, not a number",
    "binG": "Lin's gain measures; not in the standard TREC track measures",
    "G": "Lin's gain measures; not in the standard TREC track measures",
    "ndcg_rel": "nDCG averaged over relevant documents; rarely reported",
    "Rndcg": "nDCG at R; rarely reported",
    "rbp": "trec_eval's graded RBP reads uninitialised memory (nondeterministic); use rankwise.rbp",
    "rbp_resid": "depends on trec_eval's rbp",
    "dcg": "trec_eval 10.0 does not print it in -m all_trec; use rankwise.dcg",
    "ideal_dcg": "as dcg",
    "yaap": "not in trec_eval's all_trec set",
}
_NICKNAMES = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"],
    "all_trec": [root for root in _ROOTS if root != "Judged"],
}


@dataclass(frozen=True)
class TrecSpec:
    """One printed measure: its root, printed name, kernel kind and parameters.

    ``params`` is the cutoff (``(k,)``, an int), recall fraction, utility coefficients or
    F's beta²; ``gains`` holds ndcg's custom ``(level, gain)`` pairs in the order given;
    ``points`` are the recall points 11pt_avg averages over, in the order given.
    """

    root: str
    name: str
    params: tuple = ()
    gains: tuple = ()
    points: tuple = ()

    @property
    def kind(self) -> TrecMeasure | None:
        return _ROOTS[self.root].kind

    @property
    def cutoff(self) -> int | None:
        """The rank cutoff of P, recall, ndcg_cut, map_cut, relative_P and success."""
        return self.params[0] if _ROOTS[self.root].params == "cuts" else None

    @property
    def order(self) -> tuple:
        return (_ORDER[self.root], self.params)


def _equivalent(spec: MetricSpec) -> str | None:
    """trec_eval's name for one of rankwise's own metrics (None: trec_eval has none)."""
    linear = spec.gain in (None, "linear")
    if spec.variant != Variant.DEFAULT:
        return None  # trec_eval defines AP, recall and nDCG one way only
    if spec.kind == Metric.NDCG and linear:
        return "ndcg" if spec.k is None else f"ndcg_cut.{spec.k}"
    return {
        (Metric.PRECISION, True): f"P.{spec.k}",
        (Metric.RECALL, True): f"recall.{spec.k}",
        (Metric.AP, False): "map",
        (Metric.AP, True): f"map_cut.{spec.k}",
        (Metric.RR, False): "recip_rank",
        (Metric.RPREC, False): "Rprec",
        (Metric.HITS, True): f"success.{spec.k}",
    }.get((spec.kind, spec.k is not None))


def _unknown(text: str) -> ValueError:
    root = text.split(".")[0]
    if root in UNSUPPORTED:
        return ValueError(f"trec_eval measure {root!r} is not supported: {UNSUPPORTED[root]}")
    try:
        spec = parse_metric(text)
    except ValueError:
        spec = None
    hint = None
    if spec is not None:
        name = _equivalent(spec)
        hint = (f"did you mean {name!r}? (trec_eval's name for rankwise's {spec.name})" if name is not None
                else f"rankwise's {spec.name} has no trec_eval equivalent; compute it with "
                f"rankwise.evaluate(..., [{spec.name!r}])")
    return unknown_name(text, [*_ROOTS, *_NICKNAMES], "trec_eval measure", like=root, hint=hint)


# Parameters are read strictly, so that every accepted text means to rankwise what it means
# to trec_eval (which reads cutoffs with C's atol and other numbers with atof, both of which
# stop at the first character they do not understand and read "" as 0). C's isspace around
# a number is skipped by atol and atof alike, so it is allowed.
_SPACE = " \t\n\v\f\r"
_INTEGER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]*)?")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_LEVEL = re.compile(r"[+-]?[0-9]+")          # gain_init.c's valid_int
_ATOL = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")
_ATOF = re.compile(r"[ \t\n\v\f\r]*([+-]?(?:(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                   r"(?:[pP][+-]?[0-9]+)?)|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                   r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN]))")
_INT64_MAX = 2**63 - 1
# trec_eval sorts cutoffs with a comparator that returns their difference as a C int: cutoffs
# 2**31 or more apart can be misordered, and then it prints wrong values (P.1,4294967296
# gives P_1 = 2.0). One measure's cutoffs must therefore lie within this span.
_CUT_SPAN = 2**31 - 1
_CUT_RULE = ("cutoffs are integers from 1 to 2**63 - 1 (a fractional part is dropped, as trec_eval's atol "
             "drops it: '23.4' is 23)")
# iprec_at_recall and Rprec_mult print their parameter as "%3.2f" in 8 characters; beyond
# them trec_eval truncates the name. The same bound keeps lround(fraction * R) far from overflow.
_FRACTION_LIMIT = 9999.99
_RULES = {
    "iprec_at_recall": ("recall fraction", f"recall fractions are decimal numbers from -{_FRACTION_LIMIT} to "
                        f"{_FRACTION_LIMIT} (trec_eval prints them with 2 decimals in 8 characters)"),
    "Rprec_mult": ("multiplier", f"multipliers of R are decimal numbers from -{_FRACTION_LIMIT} to "
                   f"{_FRACTION_LIMIT} (trec_eval prints them with 2 decimals in 8 characters)"),
    "11pt_avg": ("recall fraction", f"recall fractions are decimal numbers from -{_FRACTION_LIMIT} to "
                 f"{_FRACTION_LIMIT}"),
    "utility": ("coefficient", "utility takes exactly 4 coefficients, finite decimal numbers"),
    "set_F": ("parameter", "set_F takes one parameter (beta squared), a finite decimal number"),
    "ndcg": ("gain", "gains are comma-separated 'level=gain' pairs of an integer level from -2**63 to "
             "2**63 - 1 and a finite decimal gain"),
}


def _atol(text: str) -> int:
    """What C's atol reads from ``text`` (glibc saturates on overflow)."""
    match = _ATOL.match(text)
    value = int(match[1]) if match else 0
    return min(max(value, -2**63), _INT64_MAX)


def _atof(text: str) -> float:
    """What C's atof reads from ``text``."""
    match = _ATOF.match(text)
    if not match:
        return 0.0
    return float.fromhex(match[1]) if match[2] else float(match[1])


def _refused(text: str, what: str, part: str, problem: str, rule: str, read: object = None) -> ValueError:
    said = f"; trec_eval would read it as {read!r}" if read is not None else ""
    return ValueError(f"trec_eval measure {text!r}: {what} {part!r} {problem}; {rule}{said}")


def _cutoffs(text: str, root: str, raw: str) -> list[int]:
    values = []
    for part in raw.split(","):
        literal = part.strip(_SPACE)
        if not _INTEGER.fullmatch(literal):
            raise _refused(text, "cutoff", part, "is not an integer", _CUT_RULE, _atol(part))
        value = int(literal.split(".")[0])
        if not 1 <= value <= _INT64_MAX:
            raise _refused(text, "cutoff", part, "is out of range", _CUT_RULE)
        values.append(value)
    if len(set(values)) != len(values):
        raise ValueError(f"trec_eval measure {text!r}: duplicate cutoffs (trec_eval refuses them too)")
    low, high = min(values), max(values)
    if high - low > _CUT_SPAN:
        raise ValueError(f"trec_eval measure {text!r}: cutoffs {low} and {high} are 2**31 or more apart; "
                         "trec_eval 10.0 compares cutoffs through a 32-bit int, misorders such a list and "
                         "prints wrong values; give them in separate measures (e.g. "
                         f"'{root}.{low}' and '{root}.{high}')")
    return sorted(values)


def _decimal(text: str, root: str, part: str) -> float:
    what, rule = _RULES[root]
    literal = part.strip(_SPACE)
    if not _DECIMAL.fullmatch(literal):
        raise _refused(text, what, part, "is not a decimal number", rule, _atof(part))
    value = float(literal)
    if not math.isfinite(value):
        raise _refused(text, what, part, "is out of range", rule)
    if root in ("iprec_at_recall", "Rprec_mult", "11pt_avg") and abs(float(f"{value:.2f}")) > _FRACTION_LIMIT:
        raise _refused(text, what, part, "is out of range", rule)
    return value


def _fractions(text: str, root: str, raw: str) -> list[float]:
    values = sorted(_decimal(text, root, part) for part in raw.split(","))
    if len(set(values)) != len(values):
        raise ValueError(f"trec_eval measure {text!r}: duplicate {_RULES[root][0]}s (trec_eval refuses them "
                         "too)")
    names: dict = {}
    for value in values:
        name = f"{root}_{value:.2f}"
        if name in names:
            raise ValueError(f"trec_eval measure {text!r}: {names[name]!r} and {value!r} both print as "
                             f"{name!r} (trec_eval would print two lines of that name); give values that "
                             "differ in their first 2 decimals")
        names[name] = value
    return values


def _coefficients(text: str, root: str, raw: str, count: int) -> tuple:
    values = tuple(_decimal(text, root, part) for part in raw.split(","))
    if len(values) != count:
        raise ValueError(f"trec_eval measure {text!r}: {_RULES[root][1]}, got {len(values)}")
    return values


def _gain_pairs(text: str, raw: str) -> tuple:
    what, rule = _RULES["ndcg"]
    pairs: dict = {}
    for part in raw.split(","):
        level, sep, gain = part.partition("=")
        if not sep or "=" in gain:
            raise _refused(text, "pair", part, "is not 'level=gain'", rule)
        if not _LEVEL.fullmatch(level):
            raise _refused(text, "gain level", level, "is not an integer (digits with an optional sign)",
                           rule + " (trec_eval silently ignores a pair whose level is not an integer)")
        if not -2**63 <= int(level) <= _INT64_MAX:
            raise _refused(text, "gain level", level, "is out of range", rule)
        value = _decimal(text, "ndcg", gain)
        if int(level) in pairs:
            raise ValueError(f"trec_eval measure {text!r}: level {int(level)} has two gains (trec_eval would "
                             "give its documents one and the ideal ranking the other); give each level once")
        pairs[int(level)] = value
    # In the order given: trec_eval's ideal ranking depends on it (trec._trec_ideal_blocks).
    return tuple(pairs.items())


def _expand(text: str, root: str, raw: str | None) -> list[TrecSpec]:
    spec = _ROOTS[root]
    if raw is not None and spec.params == "none":
        raise ValueError(f"trec_eval measure {root!r} takes no parameters, got {text!r}")
    if spec.params == "cuts":
        if raw is None and not spec.default:
            raise ValueError(f"measure {text!r} needs a cutoff, e.g. '{root}@10' or '{root}.5,10'")
        cuts = _cutoffs(text, root, raw) if raw is not None else list(spec.default)
        return [TrecSpec(root, f"{root}_{k}", (k,)) for k in cuts]
    if spec.params == "fractions":
        points = _fractions(text, root, raw) if raw is not None else list(spec.default)
        return [TrecSpec(root, f"{root}_{p:.2f}", (p,)) for p in points]
    if spec.params == "points":
        # trec_eval keeps 11pt_avg's points as given: unsorted, duplicates allowed.
        given = spec.default if raw is None else tuple(_decimal(text, root, part) for part in raw.split(","))
        return [TrecSpec(root, root if raw is None else f"{root}_{raw}", points=given)]
    if spec.params == "coefficients":
        values = _coefficients(text, root, raw, len(spec.default)) if raw is not None else spec.default
        return [TrecSpec(root, root if raw is None else f"{root}_{raw}", tuple(values))]
    if spec.params == "gains":
        return [TrecSpec(root, root if raw is None else f"{root}_{raw}",
                         gains=_gain_pairs(text, raw) if raw is not None else ())]
    return [TrecSpec(root, root)]


def _split(text: str) -> tuple[str, str | None]:
    """Root and parameter string of ``P.5,10``, ``P_10``, ``iprec_at_recall_0.10`` or ``map``."""
    key = text.strip()
    for root in sorted(UNSUPPORTED, key=len, reverse=True):
        if key == root or key.startswith((root + ".", root + "_")):
            raise _unknown(root)
    if key.lower() in _LOWER:
        return _LOWER[key.lower()], None
    if key.lower().startswith("judged@"):
        return "Judged", key[len("judged@"):]   # ir_measures' spelling
    if key[-1:] in "._" and key[:-1].lower() in _LOWER:
        raise ValueError(f"trec_eval measure {text!r} has an empty parameter list; give parameters after the "
                         f"'{key[-1]}' or none at all")
    parts = split_parameters(key, _ROOTS)
    if parts is None:
        raise _unknown(text)
    return parts


def parse_trec_measures(measures: str | Iterable[str]) -> list[TrecSpec]:
    """Expand measure names into printed measures, deduplicated, in trec_eval's print order.

    Examples
    --------
    >>> [s.name for s in parse_trec_measures(["P.5,7,3", "map"])]
    ['map', 'P_3', 'P_5', 'P_7']
    >>> [s.name for s in parse_trec_measures(["ndcg_cut_10", "iprec_at_recall..10,.5"])]
    ['iprec_at_recall_0.10', 'iprec_at_recall_0.50', 'ndcg_cut_10']
    """
    try:
        if isinstance(measures, (bytes, bytearray)):
            raise TypeError
        names = [measures] if isinstance(measures, str) else list(measures)
    except TypeError:
        raise TypeError(f"measures must be a trec_eval measure name or a list of them, got "
                        f"{type(measures).__name__}") from None
    if not names:
        raise ValueError("measures must name at least one trec_eval measure")
    specs: dict = {}
    asked: dict = {}
    for text in names:
        if not isinstance(text, str):
            raise TypeError(f"measure names must be strings, got {type(text).__name__}")
        if text.strip() in _NICKNAMES:
            expanded = [s for root in _NICKNAMES[text.strip()] for s in _expand(text, root, None)]
        else:
            root, raw = _split(text)
            expanded = _expand(text, root, raw)
        for spec in expanded:
            if specs.setdefault(spec.name, spec) != spec:
                raise ValueError(f"trec_eval measures {asked[spec.name]!r} and {text!r} both print "
                                 f"{spec.name!r}, with different parameters; give parameters whose printed "
                                 "names differ")
            asked.setdefault(spec.name, text)
    return sorted(specs.values(), key=lambda s: s.order)


def first_parameters(measures: Iterable[str]) -> tuple[list[str], list[str]]:
    """trec_eval's reading of repeated ``-m`` options: the measures it computes, and notes.

    trec_eval marks every measure named (a set such as ``official`` marks each of its
    measures) and gives each the parameters of the first ``-m`` that names it with
    parameters (``P.1``), or its defaults when none does: ``-m P.1 -m P.2`` is ``P.1``,
    ``-m official -m P.1`` is official with ``P.1`` as its P, ``-m P.5 -m P`` is
    ``P.5``. Returns the measure names that give trec_eval's output (for
    :func:`parse_trec_measures`), in the order first named, and one note for each ``-m``
    whose parameters (or defaults) for a measure are not used. rankwise's ``P_10`` form
    counts as parameters, as ``P.10``.

    Examples
    --------
    >>> kept, notes = first_parameters(["P.1", "map", "P.2"])
    >>> kept
    ['P.1', 'map']
    >>> print(*notes)
    -m P.2 ignored: P keeps the parameters of -m P.1 (trec_eval keeps the first -m with parameters)
    >>> first_parameters(["official", "P.5,10"])[0][-1]
    'P.5,10'
    """
    named: dict = {}        # root -> the -m texts that name it, in order
    given: dict = {}        # root -> (text, parameters) of the first -m with parameters
    for text in measures:
        if text.strip() in _NICKNAMES:
            for root in _NICKNAMES[text.strip()]:
                named.setdefault(root, []).append(text)
            continue
        root, raw = _split(text)
        named.setdefault(root, []).append(text)
        if raw is not None:
            given.setdefault(root, (text, raw))
    kept, notes = [], []
    rule = "(trec_eval keeps the first -m with parameters)"
    for root, texts in named.items():
        if root not in given:
            kept.append(root)
            continue
        first, raw = given[root]
        kept.append(f"{root}.{raw}")
        used = [s.name for s in _expand(first, root, raw)]
        for text in dict.fromkeys(texts):
            nickname = text.strip() in _NICKNAMES
            own = None if nickname else _split(text)[1]
            if text == first or [s.name for s in _expand(text, root, own)] == used:
                continue
            if own is not None:
                notes.append(f"-m {text} ignored: {root} keeps the parameters of -m {first} {rule}")
            else:
                whose = f"its {root}" if nickname else root
                notes.append(f"-m {text}: {whose} takes the parameters of -m {first}, not {root}'s defaults "
                             f"{rule}")
    return kept, notes
