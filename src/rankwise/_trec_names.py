"""trec_eval measure names: parameters, defaults, printed names and print order.

``P.5,10`` and ``P_10`` both name precision at cutoffs; ``all_trec``, ``official`` and
``set`` expand to trec_eval's measure sets. Measures come out in trec_eval's own order
(that of its measure table), whatever order they were asked in, as trec_eval prints them.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

from ._kernels._trec import TrecMeasure

__all__ = ["TrecSpec", "parse_trec_measures", "UNSUPPORTED"]

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_POINTS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class _Root:
    kind: TrecMeasure | None      # None: computed from other columns (11pt_avg) or a label
    params: str                   # "none", "cuts" (integers), "fractions", "coefficients", "gains"
    default: tuple = ()


# trec_eval's measure table, in its print order (trec_eval 10.0, as its test outputs show).
_ROOTS = {
    "runid": _Root(None, "none"),
    "num_q": _Root(None, "none"),
    "num_ret": _Root(TrecMeasure.NUM_RET, "none"),
    "num_rel": _Root(TrecMeasure.NUM_REL, "none"),
    "num_rel_ret": _Root(TrecMeasure.NUM_REL_RET, "none"),
    "map": _Root(TrecMeasure.MAP, "none"),
    "gm_map": _Root(TrecMeasure.GM_MAP, "none"),
    "Rprec": _Root(TrecMeasure.RPREC, "none"),
    "bpref": _Root(TrecMeasure.BPREF, "none"),
    "recip_rank": _Root(TrecMeasure.RECIP_RANK, "none"),
    "iprec_at_recall": _Root(TrecMeasure.IPREC, "fractions", _RECALL_POINTS),
    "P": _Root(TrecMeasure.P, "cuts", _CUTS),
    "recall": _Root(TrecMeasure.RECALL, "cuts", _CUTS),
    "infAP": _Root(TrecMeasure.INFAP, "none"),
    "gm_bpref": _Root(TrecMeasure.GM_BPREF, "none"),
    "Rprec_mult": _Root(TrecMeasure.RPREC_MULT, "fractions", tuple(i / 5 for i in range(1, 11))),
    "utility": _Root(TrecMeasure.UTILITY, "coefficients", (1.0, -1.0, 0.0, 0.0)),
    "11pt_avg": _Root(None, "fractions", _RECALL_POINTS),
    "ndcg": _Root(TrecMeasure.NDCG, "gains"),
    "ndcg_cut": _Root(TrecMeasure.NDCG_CUT, "cuts", _CUTS),
    "map_cut": _Root(TrecMeasure.MAP_CUT, "cuts", _CUTS),
    "relative_P": _Root(TrecMeasure.RELATIVE_P, "cuts", _CUTS),
    "success": _Root(TrecMeasure.SUCCESS, "cuts", (1, 5, 10)),
    "set_P": _Root(TrecMeasure.SET_P, "none"),
    "set_relative_P": _Root(TrecMeasure.SET_RELATIVE_P, "none"),
    "set_recall": _Root(TrecMeasure.SET_RECALL, "none"),
    "set_map": _Root(TrecMeasure.SET_MAP, "none"),
    "set_F": _Root(TrecMeasure.SET_F, "coefficients", (1.0,)),
    "num_nonrel_judged_ret": _Root(TrecMeasure.NUM_NONREL_JUDGED_RET, "none"),
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
    "unj": "fraction of unjudged documents in the top k",
    "dcg": "trec_eval 10.0 does not print it in -m all_trec; use rankwise.dcg",
    "ideal_dcg": "as dcg",
    "yaap": "not in trec_eval's all_trec set",
}
_NICKNAMES = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"],
    "all_trec": [root for root in _ROOTS],
}


@dataclass(frozen=True)
class TrecSpec:
    """One printed measure: its root, printed name, kernel kind and parameters.

    ``params`` is the cutoff (``(k,)``), recall fraction, utility coefficients or
    F's beta²; ``gains`` maps integer labels to ndcg gains; ``points`` are the recall
    points 11pt_avg averages over.
    """

    root: str
    name: str
    params: tuple = ()
    gains: tuple = ()
    points: tuple = ()

    @property
    def kind(self):
        return _ROOTS[self.root].kind

    @property
    def order(self) -> tuple:
        return (_ORDER[self.root], self.params)


def _unknown(text: str) -> ValueError:
    root = text.split(".")[0]
    if root in UNSUPPORTED:
        return ValueError(f"trec_eval measure {root!r} is not supported: {UNSUPPORTED[root]}")
    close = difflib.get_close_matches(root, list(_ROOTS) + list(_NICKNAMES), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return ValueError(f"unknown trec_eval measure {text!r}{hint}")


def _numbers(text: str, raw: str, integer: bool) -> list:
    values = []
    for part in raw.split(","):
        try:
            values.append(float(part))
        except ValueError:
            raise ValueError(f"trec_eval measure {text!r}: parameter {part!r} is not a number") from None
    if integer:
        # trec_eval reads cutoffs with atol: 23.4 is 23.
        values = [int(v) for v in values]
        if any(v < 1 for v in values):
            raise ValueError(f"trec_eval measure {text!r}: cutoffs must be positive")
    if len(set(values)) != len(values):
        raise ValueError(f"trec_eval measure {text!r}: duplicate parameters")
    return sorted(values)


def _gains(text: str, raw: str) -> tuple:
    pairs = []
    for part in raw.split(","):
        level, sep, gain = part.partition("=")
        try:
            pairs.append((int(level), float(gain)))
        except ValueError:
            raise ValueError(f"trec_eval measure {text!r}: gains are 'level=gain' pairs with an integer "
                             f"level >= 0, got {part!r}") from None
        if not sep or pairs[-1][0] < 0:
            raise ValueError(f"trec_eval measure {text!r}: gains are 'level=gain' pairs with an integer "
                             f"level >= 0, got {part!r}")
    return tuple(pairs)


def _expand(text: str, root: str, raw: str | None) -> list[TrecSpec]:
    spec = _ROOTS[root]
    if raw is not None and spec.params == "none":
        raise ValueError(f"trec_eval measure {root!r} takes no parameters, got {text!r}")
    if spec.params == "cuts":
        cuts = _numbers(text, raw, True) if raw is not None else list(spec.default)
        return [TrecSpec(root, f"{root}_{k}", (float(k),)) for k in cuts]
    if spec.params == "fractions":
        points = _numbers(text, raw, False) if raw is not None else list(spec.default)
        if root == "11pt_avg":
            return [TrecSpec(root, root if raw is None else f"{root}_{raw}", points=tuple(points))]
        return [TrecSpec(root, f"{root}_{p:.2f}", (p,)) for p in points]
    if spec.params == "coefficients":
        values = [float(v) for v in raw.split(",")] if raw is not None else list(spec.default)
        if len(values) != len(spec.default):
            raise ValueError(f"trec_eval measure {text!r}: {root} takes {len(spec.default)} parameters")
        return [TrecSpec(root, root if raw is None else f"{root}_{raw}", tuple(values))]
    if spec.params == "gains":
        return [TrecSpec(root, root if raw is None else f"{root}_{raw}",
                         gains=_gains(text, raw) if raw is not None else ())]
    return [TrecSpec(root, root)]


def _split(text: str) -> tuple[str, str | None]:
    """Root and parameter string of ``P.5,10``, ``P_10``, ``iprec_at_recall_0.10`` or ``map``."""
    key = text.strip()
    for root in sorted(UNSUPPORTED, key=len, reverse=True):
        if key == root or key.startswith((root + ".", root + "_")):
            raise _unknown(root)
    if key.lower() in _LOWER:
        return _LOWER[key.lower()], None
    for root in sorted(_ROOTS, key=len, reverse=True):
        for sep in (".", "_"):
            if key.lower().startswith(root.lower() + sep) and len(key) > len(root) + 1:
                return root, key[len(root) + 1:]
    raise _unknown(text)


def parse_trec_measures(measures) -> list[TrecSpec]:
    """Expand measure names into printed measures, deduplicated, in trec_eval's print order.

    Examples
    --------
    >>> [s.name for s in parse_trec_measures(["P.5,7,3", "map"])]
    ['map', 'P_3', 'P_5', 'P_7']
    >>> [s.name for s in parse_trec_measures(["ndcg_cut_10", "iprec_at_recall..10,.5"])]
    ['iprec_at_recall_0.10', 'iprec_at_recall_0.50', 'ndcg_cut_10']
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        raise ValueError("measures must name at least one trec_eval measure")
    specs = {}
    for text in names:
        if not isinstance(text, str):
            raise TypeError(f"measure names must be strings, got {type(text).__name__}")
        if text.strip() in _NICKNAMES:
            expanded = [s for root in _NICKNAMES[text.strip()] for s in _expand(text, root, None)]
        else:
            root, raw = _split(text)
            expanded = _expand(text, root, raw)
        for spec in expanded:
            specs.setdefault(spec.name, spec)
    return sorted(specs.values(), key=lambda s: s.order)
