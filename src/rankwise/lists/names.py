"""List-metric names: the table of roots, aliases, parameters and canonical forms.

Accepted spellings (case-insensitive), in the grammar of :mod:`rankwise._core.names`:

* ir_measures style: ``nDCG@10``, ``AP``, ``RR``, ``P@10``, ``R@100``, ``Success@10``,
  with parameters in parentheses: ``RBP(p=0.9)``, ``nDCG(gain=exponential)@10``.
* the definitions where libraries differ (``docs/conventions.md``): ``AP(denom=min)@10``,
  ``R(denom=min)@20`` (divide by min(R, k), not R), ``AP(denom=hits)@10`` (by the relevant
  items within k), ``nDCG(ideal=all)@10`` (the ideal DCG of every relevant label, not cut at k).
* trec_eval style: ``map``, ``map_cut_10`` / ``map_cut.10``, ``ndcg_cut_10``, ``P_10``,
  ``recall_100``, ``recip_rank``, ``Rprec``, ``success_10``.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._core._enums import Metric, Variant
from .._core.names import (
    NameParts,
    check_cutoff,
    name_key,
    parse_cutoff,
    split_name,
    split_parameters,
    unknown_name,
)
from .._core.validation import as_real

__all__ = ["MetricSpec", "make_spec", "parse_metric"]

# In the trec_eval form a list metric takes one cutoff; other parameters go in parentheses.
_CUTOFF_DIGITS = re.compile(r"\d+")

# alias -> (kind, whether the alias itself needs a cutoff, as trec_eval's *_cut measures do)
_ALIASES: dict[str, tuple[Metric, bool]] = {}
_CANONICAL = {
    Metric.RR: "RR",
    Metric.AP: "AP",
    Metric.PRECISION: "P",
    Metric.RECALL: "R",
    Metric.RPREC: "Rprec",
    Metric.DCG: "DCG",
    Metric.NDCG: "nDCG",
    Metric.HITS: "Hits",
    Metric.ERR: "ERR",
    Metric.RBP: "RBP",
    Metric.F1: "F1",
}
for _kind, _needs_k, _names in [
    (Metric.RR, False, ["rr", "mrr", "recip_rank", "reciprocal_rank"]),
    (Metric.AP, False, ["ap", "map", "average_precision"]),
    (Metric.AP, True, ["map_cut"]),
    (Metric.PRECISION, False, ["p", "precision"]),
    (Metric.RECALL, False, ["r", "recall"]),
    (Metric.RPREC, False, ["rprec", "r-prec", "r_prec", "r-precision", "r_precision"]),
    (Metric.DCG, False, ["dcg"]),
    (Metric.DCG, True, ["dcg_cut"]),
    (Metric.NDCG, False, ["ndcg"]),
    (Metric.NDCG, True, ["ndcg_cut"]),
    (Metric.HITS, False, ["hits", "success", "hit_rate", "hitrate"]),
    (Metric.ERR, False, ["err"]),
    (Metric.RBP, False, ["rbp"]),
    (Metric.F1, False, ["f1", "f"]),
]:
    for _name in _names:
        _ALIASES[_name] = (_kind, _needs_k)

_CUTOFF_REQUIRED = {Metric.PRECISION, Metric.RECALL, Metric.HITS, Metric.F1}
_NO_CUTOFF = {Metric.RPREC}
# Spellings (lower-cased) of the definition options' values, and their defaults (trec_eval's).
_DENOMS = {"r": "R", "min": "min", "hits": "hits"}
_IDEALS = {"cut": "cut", "all": "all"}
# parameter -> (kinds accepting it, parser)
_PARAMS: dict[str, tuple[set[Metric], Callable[[str], Any]]] = {
    "p": ({Metric.RBP}, float),
    "graded": ({Metric.RBP}, lambda v: {"true": True, "false": False}[v.lower()]),
    "gain": ({Metric.DCG, Metric.NDCG},
             lambda v: {"linear": "linear", "exponential": "exponential"}[v.lower()]),
    "denom": ({Metric.AP, Metric.RECALL}, lambda v: _DENOMS[v.lower()]),
    "ideal": ({Metric.NDCG}, lambda v: _IDEALS[v.lower()]),
}
_DEFAULTS = {"p": 0.8, "graded": False}
_DEFAULT_DENOM = "R"
_DEFAULT_IDEAL = "cut"
_VARIANTS = {"min": Variant.BY_MIN, "hits": Variant.BY_HITS, "all": Variant.IDEAL_ALL}

_EXAMPLES = ["MRR", "MAP", "AP@100", "nDCG", "nDCG@10", "DCG@10", "P@10", "R@100", "Rprec",
             "Hits@10", "Success@10", "ERR@20", "RBP(p=0.8)", "F1@10", "RR@10", "recip_rank",
             "map_cut_10", "ndcg_cut_10", "P_10", "recall_100", "success_10", "AP(denom=min)@10",
             "R(denom=min)@20", "AP(denom=hits)@10", "nDCG(ideal=all)@10"]


@dataclass(frozen=True, eq=False)
class MetricSpec:
    """One parsed metric: what to compute, at which cutoff, with which parameters.

    ``gain``, ``denom`` and ``ideal`` are None when the default applies (the call's gain;
    a convention's definition, else trec_eval's): ``denom`` of AP and R is ``"R"``,
    ``"min"`` (min(R, k)) or ``"hits"`` (AP: the relevant items within k); ``ideal`` of
    nDCG is ``"cut"`` (the ideal DCG of the best k labels) or ``"all"`` (of every label).
    An option given as its default compares equal to it (``AP(denom=R)@10 == AP@10``),
    yet stays set, so that a convention fills in only what the caller left out.
    """

    kind: Metric
    k: int | None = None
    p: float = 0.8
    graded: bool = False
    gain: str | None = None
    denom: str | None = None
    ideal: str | None = None

    def _identity(self) -> tuple:
        return (self.kind, self.k, self.p, self.graded, self.gain, self.denom or _DEFAULT_DENOM,
                self.ideal or _DEFAULT_IDEAL)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MetricSpec):
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    @property
    def variant(self) -> Variant:
        """The kernel's code for the definition (``Variant.DEFAULT``: trec_eval's)."""
        option = self.denom if self.kind in (Metric.AP, Metric.RECALL) else self.ideal
        return _VARIANTS.get(option or "", Variant.DEFAULT)

    @property
    def name(self) -> str:
        """Canonical name, e.g. ``nDCG@10``, ``RBP(p=0.9)`` or ``AP(denom=min)@10``."""
        args = []
        if self.kind == Metric.RBP:
            args.append(f"p={self.p:g}")
            if self.graded:
                args.append("graded=True")
        if self.gain is not None:
            args.append(f"gain={self.gain}")
        if self.denom not in (None, _DEFAULT_DENOM):
            args.append(f"denom={self.denom}")
        if self.ideal not in (None, _DEFAULT_IDEAL):
            args.append(f"ideal={self.ideal}")
        text = _CANONICAL[self.kind] + (f"({', '.join(args)})" if args else "")
        return text + (f"@{self.k}" if self.k is not None else "")

    def resolved(self, gain: str) -> MetricSpec:
        """This spec with the call's default gain filled in where the metric has a gain."""
        if self.kind in (Metric.DCG, Metric.NDCG) and self.gain is None:
            return replace(self, gain=gain)
        return self


def _parse_args(text: str, kind: Metric, args: str) -> dict[str, Any]:
    out = {}
    for part in filter(None, (a.strip() for a in args.split(","))):
        key, sep, value = part.partition("=")
        key, value = key.strip().lower(), value.strip().strip("'\"")
        if not sep or key not in _PARAMS or kind not in _PARAMS[key][0]:
            raise ValueError(f"metric {text!r}: unknown parameter {part!r} for {_CANONICAL[kind]}")
        try:
            out[key] = _PARAMS[key][1](value)
        except (KeyError, ValueError):
            raise ValueError(f"metric {text!r}: invalid value {value!r} for parameter {key!r}") from None
    return out


def _check_option(value: object, option: str, spellings: dict[str, str], where: str) -> str | None:
    """``denom`` or ``ideal`` in canonical spelling (values are case-insensitive), or None."""
    if value is None:
        return None
    choices = " or ".join(repr(v) for v in dict.fromkeys(spellings.values()))
    if not isinstance(value, str):
        raise TypeError(f"{where}: {option} must be {choices}, got {value!r}")
    if value.lower() not in spellings:
        raise ValueError(f"{where}: {option} must be {choices}, got {value!r}")
    return spellings[value.lower()]


def _check_definition(kind: Metric, denom: object, ideal: object,
                      where: str) -> tuple[str | None, str | None]:
    """The definition options ``denom`` and ``ideal``, checked against the metric they apply to."""
    denom = _check_option(denom, "denom", _DENOMS, where)
    ideal = _check_option(ideal, "ideal", _IDEALS, where)
    if denom is not None and kind not in (Metric.AP, Metric.RECALL):
        raise ValueError(f"{where}: denom applies to AP and R only, not to {_CANONICAL[kind]}")
    if denom == "hits" and kind != Metric.AP:
        raise ValueError(f"{where}: denom='hits' applies to AP only, not to {_CANONICAL[kind]}; "
                         "R takes denom='R' or 'min'")
    if ideal is not None and kind != Metric.NDCG:
        raise ValueError(f"{where}: ideal applies to nDCG only, not to {_CANONICAL[kind]}")
    return denom, ideal


def make_spec(kind: Metric, k: object = None, *, where: str, p: object = 0.8, graded: object = False,
              gain: str | None = None, denom: str | None = None, ideal: str | None = None,
              k_argument: bool = False) -> MetricSpec:
    """Validate one metric's cutoff and parameters; ``where`` names them in errors.

    ``k_argument``: ``k`` is a function's argument (not parsed from a name), so a missing
    cutoff that the metric requires is None given for an integer: a TypeError.
    """
    if k is not None:
        k = check_cutoff(k, where)
        if kind in _NO_CUTOFF:
            raise ValueError(f"{where}: {_CANONICAL[kind]} takes no cutoff (it cuts at R)")
    elif kind in _CUTOFF_REQUIRED:
        if k_argument:
            check_cutoff(k, where)  # raises: None is not an integer
        raise ValueError(f"{where}: {_CANONICAL[kind]} needs a cutoff, e.g. '{_CANONICAL[kind]}@10'")
    try:
        persistence = as_real(p, "p")
    except TypeError:
        raise TypeError(f"{where}: RBP persistence p must be a number in (0, 1), got {p!r}") from None
    if kind == Metric.RBP and not 0.0 < persistence < 1.0:
        raise ValueError(f"{where}: RBP persistence p must be in (0, 1), got {p!r}")
    if not isinstance(graded, (bool, np.bool_)):
        raise TypeError(f"{where}: graded must be True or False, got {graded!r}")
    if gain is not None and not isinstance(gain, str):
        raise TypeError(f"{where}: gain must be 'linear' or 'exponential', got {gain!r}")
    if gain not in (None, "linear", "exponential"):
        raise ValueError(f"{where}: gain must be 'linear' or 'exponential', got {gain!r}")
    denom, ideal = _check_definition(kind, denom, ideal, where)
    return MetricSpec(kind, k, persistence, bool(graded), gain, denom, ideal)


def parse_metric(text: str) -> MetricSpec:
    """Parse one metric name into a :class:`MetricSpec`.

    Examples
    --------
    >>> parse_metric("ndcg_cut_10").name
    'nDCG@10'
    >>> parse_metric("RBP(p=0.9)").name
    'RBP(p=0.9)'
    >>> parse_metric("ap(DENOM=Min)@10").name, parse_metric("AP(denom=R)@10").name
    ('AP(denom=min)@10', 'AP@10')
    """
    key = name_key(text)
    trec = split_parameters(key, _ALIASES)
    cut = trec is not None and _CUTOFF_DIGITS.fullmatch(trec[1])
    name, args, raw_k = NameParts(trec[0], None, trec[1]) if trec and cut else split_name(key)
    if name not in _ALIASES:
        raise unknown_name(text, _EXAMPLES)
    kind, cut_alias = _ALIASES[name]
    if cut_alias and raw_k is None:
        raise ValueError(f"metric {text!r} needs a cutoff, e.g. '{name}_10'")
    k = parse_cutoff(raw_k, f"metric {text!r}") if raw_k is not None else None
    params = {**_DEFAULTS, **_parse_args(text, kind, args or "")}
    return make_spec(kind, k, where=f"metric {text!r}", **params)
