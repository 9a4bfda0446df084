"""Beyond-accuracy metrics of top-k recommendation lists: coverage, exposure, novelty, bias, diversity.

Every metric reads only the recommended lists, the training interactions (for item
popularity) and item features (for intra-list diversity); none needs the held-out items.
The libraries that offer these metrics disagree on their definitions (RecBole divides its
entropy by the number of distinct items, Elliot reports 1 - Gini, recmetrics gives an
empty list a cosine of 0...), so each definition is written out in
:func:`beyond_accuracy`'s docstring and in ``docs/beyond-accuracy.md``, with the paper and
the library it follows. Everything is vectorised over the flat (user, item) entries:
memory is O(input), never users x items; personalization sums over items instead of
comparing the O(users^2) pairs, and intra-list diversity sums each list's normalised
feature vectors instead of forming K x K similarity matrices.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.exact import ExactSum
from .._core.names import metric_names, name_key, parse_cutoff, split_name, unknown_name
from .._core.sparse import as_csr, is_sparse
from .._core.validation import as_array, as_integers, check_choice
from .layouts import Lists, as_recommended, check_n_items

__all__ = ["BeyondSpec", "beyond_accuracy", "parse_beyond_metric"]

# Name (lower case) -> canonical name; RecBole's, Elliot's and recmetrics' names are aliases.
_ROOTS = {
    "coverage": "coverage", "item_coverage": "coverage", "itemcoverage": "coverage",
    "catalog_coverage": "coverage",
    "gini": "gini", "gini_index": "gini", "giniindex": "gini",
    "entropy": "entropy", "shannon_entropy": "entropy", "shannonentropy": "entropy",
    "novelty": "novelty", "self_information": "novelty",
    "epc": "EPC",
    "arp": "ARP", "average_popularity": "ARP", "averagepopularity": "ARP",
    "aplt": "APLT",
    "personalization": "personalization", "personalisation": "personalization",
    "ild": "ILD", "intra_list_diversity": "ILD",
}
_SUGGESTED = ["coverage", "gini", "entropy", "novelty", "EPC", "ARP", "APLT", "personalization", "ILD",
              "EPC(discount=log)", "coverage@10", "gini_index", "shannon_entropy", "intra_list_diversity"]
_DISCOUNTS = ("exp", "log", "none")
# Vargas & Castells' exponential rank discount disc(k) = _EXP_BASE ** (k - 1).
_EXP_BASE = 0.85
# Users per block of intra-list diversity: a block's summed feature vectors (users x d)
# stay near this many float64 values whatever the number of users.
_BLOCK_VALUES = 1 << 22

_NEEDS_CATALOGUE = {"coverage", "gini"}
_NEEDS_POPULARITY = {"novelty", "EPC", "ARP"}


@dataclass(frozen=True)
class BeyondSpec:
    """A parsed beyond-accuracy metric: canonical ``kind``, cutoff ``k`` (None: whole lists),
    and EPC's rank ``discount`` ("exp", "log" or "none")."""

    kind: str
    k: int | None = None
    discount: str = "exp"


def parse_beyond_metric(text: str) -> BeyondSpec:
    """Parse a beyond-accuracy metric name (case-insensitive), e.g. ``"gini@10"``.

    Examples
    --------
    >>> parse_beyond_metric("Shannon_Entropy@20")
    BeyondSpec(kind='entropy', k=20, discount='exp')
    >>> parse_beyond_metric("EPC(discount=log)@10")
    BeyondSpec(kind='EPC', k=10, discount='log')
    """
    root, args, raw_k = split_name(name_key(text))
    kind = _ROOTS.get(root.strip())
    if kind is None:
        raise unknown_name(text, _SUGGESTED, "beyond-accuracy metric")
    k = None if raw_k is None else parse_cutoff(raw_k.strip(), f"metric {text!r}")
    if args is None:
        return BeyondSpec(kind, k)
    option, equals, value = args.partition("=")
    if kind != "EPC":
        raise ValueError(f"metric {text!r}: {kind} takes no parameters")
    if option.strip() != "discount" or not equals or value.strip() not in _DISCOUNTS:
        raise ValueError(f"metric {text!r}: EPC's one parameter is discount=exp|log|none, got {args!r}")
    return BeyondSpec(kind, k, value.strip())


def _lengths(lists: Lists) -> np.ndarray:
    return np.diff(lists.indptr)


def _rows(lists: Lists) -> np.ndarray:
    """The user (row) of each entry."""
    return np.repeat(np.arange(lists.n_users), _lengths(lists))


def _positions(lists: Lists) -> np.ndarray:
    """Each entry's rank within its list, from 0."""
    return np.arange(lists.items.size) - np.repeat(lists.indptr[:-1], _lengths(lists))


def _cut(lists: Lists, k: int | None) -> Lists:
    """The first ``k`` items of every list."""
    lengths = _lengths(lists)
    if k is None or not (lengths > k).any():
        return lists
    indptr = np.zeros_like(lists.indptr)
    np.cumsum(np.minimum(lengths, k), out=indptr[1:])
    return replace(lists, indptr=indptr, items=lists.items[_positions(lists) < k])


def _where(lists: Lists, entry: int) -> str:
    """Entry ``entry`` as errors show it: its user (id, or row) and position."""
    row = int(_rows(lists)[entry])
    user = row if lists.user_ids is None else lists.user_ids[row]
    shown = user.item() if isinstance(user, np.generic) else user
    return f"user {shown!r}, position {_positions(lists)[entry]}"


@dataclass(frozen=True)
class _Features:
    """Item feature rows scaled to unit length (scipy.sparse CSR or dense), and their original norms."""

    unit: Any
    norms: np.ndarray


def _as_features(item_features: Any) -> _Features:
    if is_sparse(item_features):
        matrix = item_features.tocsr(copy=True)
        if len(matrix.shape) != 2 or matrix.dtype.kind not in "biuf":
            raise TypeError(f"item_features must be a 2-D matrix of numbers, got {matrix.dtype} shape "
                            f"{matrix.shape}")
        matrix = matrix.astype(np.float64)
        matrix.sum_duplicates()
        if not np.isfinite(matrix.data).all():
            raise ValueError("item_features must hold finite numbers")
        norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
        scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        matrix.data *= np.repeat(scale, np.diff(matrix.indptr))
        return _Features(matrix, norms)
    arr = as_array(item_features, "item_features")
    if arr.ndim != 2:
        raise ValueError(f"item_features must be 2-D (items, features), got shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"item_features must hold numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise ValueError("item_features must hold finite numbers")
    norms = np.sqrt(np.einsum("ij,ij->i", arr, arr))
    arr /= np.where(norms > 0, norms, 1.0)[:, None]
    return _Features(arr, norms)


def _catalogue(n_items: object, train_shape: tuple[int, int] | None, n_features: int | None) -> int | None:
    """The number of items, from whichever of n_items, train and item_features says it; they must agree."""
    sizes: list[tuple[str, int]] = []
    n_items = check_n_items(n_items)
    if n_items is not None:
        sizes.append(("n_items", n_items))
    if train_shape is not None:
        sizes.append(("train's columns", train_shape[1]))
    if n_features is not None:
        sizes.append(("item_features' rows", n_features))
    for what, size in sizes[1:]:
        if size != sizes[0][1]:
            raise ValueError(f"{sizes[0][0]} ({sizes[0][1]}) and {what} ({size}) disagree on the number "
                             "of items")
    return sizes[0][1] if sizes else None


@dataclass(frozen=True)
class _Context:
    """What the metrics read besides the lists."""

    n_items: int | None
    seen_by: np.ndarray | None      # distinct users per item in train
    popularity: np.ndarray | None   # per item, by the popularity= option
    n_train_users: int
    long_tail: np.ndarray | None    # sorted item ids
    features: _Features | None


def _is_share(long_tail: Any) -> bool:
    """Whether ``long_tail`` is a share of interactions (a number) rather than a set of items."""
    return isinstance(long_tail, (float, int, np.floating, np.integer)) and not isinstance(long_tail, bool)


def _long_tail_items(long_tail: Any, popularity: np.ndarray | None, n_items: int | None) -> np.ndarray:
    """APLT's long tail as sorted item ids: a share of interactions, or an explicit set."""
    if _is_share(long_tail):
        share = float(long_tail)
        if not 0 < share < 1:
            raise ValueError(f"long_tail, a share of interactions, must be in (0, 1), got {long_tail!r}")
        assert popularity is not None  # _check_needs asked for train=
        order = np.argsort(-popularity, kind="stable")
        held = np.cumsum(popularity[order])
        if held.size == 0 or held[-1] <= 0:
            raise ValueError("train holds no interaction: APLT's short head is undefined")
        head = int(np.searchsorted(held, (1.0 - share) * held[-1], side="left")) + 1
        return np.sort(order[head:])
    arr = as_integers(long_tail, "long_tail", "item ids")
    if arr.ndim == 1 and arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.ndim != 1 or arr.dtype.kind not in "biu":
        raise TypeError("long_tail must be a share in (0, 1), a 1-D array of item ids, or a boolean mask "
                        f"over the items; got {arr.dtype} shape {arr.shape}")
    if arr.dtype == np.bool_:
        if n_items is not None and arr.size != n_items:
            raise ValueError(f"long_tail, a boolean mask, must have one value per item ({n_items}), "
                             f"got {arr.size}")
        return np.flatnonzero(arr)
    if arr.size and (arr.min() < 0 or (n_items is not None and arr.max() >= n_items)):
        raise ValueError(f"long_tail's item ids must be from 0 to the number of items - 1, got "
                         f"{arr.min()}..{arr.max()}")
    return np.unique(arr.astype(np.int64))


def beyond_accuracy(recommended: Any, metrics: str | list[str], *, train: Any = None,
                    item_features: Any = None, n_items: int | None = None,
                    long_tail: float | ArrayLike = 0.2, popularity: str = "users") -> dict[str, float]:
    r"""Beyond-accuracy metrics of top-k recommendation lists (coverage, exposure, novelty, bias, diversity).

    Parameters
    ----------
    recommended : array-like of int, list of array-like of int, or DataFrame
        One list of item ids per user, in rank order (the layouts of
        :func:`evaluate_topk`): a (users, K) integer array where -1 pads a short list
        (only at its end), a list of 1-D arrays, or a pandas DataFrame with columns
        (user, item, rank) or (user, item, score). An item twice in one list, an id out
        of range or after the padding is a ValueError naming the user and the position.
    metrics : str or iterable of str
        Names, case-insensitive, each with an optional cutoff ``@k`` (the first k items
        of every list). ``U`` below are the users with a non-empty list (the others are
        left out of every mean over users), ``L_u`` user u's list, ``c_i`` the number of
        lists that hold item i (its exposure), ``n`` the number of items:

        * ``coverage`` (``item_coverage``): distinct recommended items / n (RecBole's
          ItemCoverage, Ge et al. 2010).
        * ``gini`` (``gini_index``): Gini index of the exposures of all n items, zeros
          included, sorted ascending, :math:`G = \sum_j (2j - n - 1) c_{(j)} / (n \sum_j
          c_j)`: 0 when every item is recommended equally often, 1 - 1/n when one item
          takes all. RecBole's GiniIndex; Elliot reports :math:`1 - G n / (n - 1)`.
        * ``entropy`` (``shannon_entropy``): Shannon entropy of exposure in nats,
          :math:`-\sum_i p_i \ln p_i`, :math:`p_i = c_i / \sum_j c_j`. RecBole's
          ShannonEntropy divides this by the number of distinct recommended items
          (RUCAIBox/RecBole#2165); rankwise does not.
        * ``novelty``: mean self-information :math:`-\log_2(s_i / N)` of the
          recommended items, averaged per list then over users (Zhou et al. 2010;
          recmetrics' novelty), :math:`s_i` the number of distinct users of ``train``
          who interacted with item i, N the number of users (rows) of ``train``. An
          item no user of ``train`` saw has infinite self-information: ValueError.
        * ``EPC``: expected popularity complement (Vargas & Castells 2011), per user
          :math:`\sum_k d(k) (1 - s_{i_k} / N) / \sum_k d(k)`, with the rank discount
          :math:`d(k) = 0.85^{k-1}` (``EPC(discount=exp)``, the default),
          :math:`1 / \log_2(k + 1)` (``EPC(discount=log)``, Elliot's) or 1
          (``EPC(discount=none)``); every item counts as relevant (no held-out data).
        * ``ARP``: average recommendation popularity (Abdollahpouri et al. 2019; Elliot),
          the mean over users of the mean popularity of the items in :math:`L_u`
          (``popularity=``).
        * ``APLT``: average percentage of long-tail items (Abdollahpouri et al. 2019;
          Elliot), the mean over users of :math:`|L_u \cap T| / |L_u|`, T by ``long_tail=``.
        * ``personalization``: 1 - the mean cosine similarity of the users' binary list
          vectors, :math:`|L_u \cap L_v| / \sqrt{|L_u| |L_v|}`, over all pairs of users
          in U (recmetrics' personalization), computed from per-item sums without
          forming the pairs. NaN when fewer than two users have a list.
        * ``ILD`` (``intra_list_diversity``): per list of at least two items, the mean
          cosine distance 1 - cos(f_i, f_j) over its pairs of items, of the rows of
          ``item_features``; averaged over those lists (Ziegler et al. 2005; 1 minus
          recmetrics' intra_list_similarity). NaN when no list has two items.
    train : scipy.sparse matrix or array-like, optional
        Training interactions, users x items (non-zero = an interaction, values >= 0).
        Needed by novelty, EPC, ARP and (with a share for ``long_tail``) APLT.
    item_features : scipy.sparse matrix or array-like, optional
        (items, d) features for ILD; a recommended item in a list of two or more whose
        row is all zeros is a ValueError (its cosine is undefined).
    n_items : int, optional
        Catalogue size, needed by coverage and gini unless ``train`` or
        ``item_features`` gives it (all that are given must agree).
    long_tail : float or array-like, default 0.2
        APLT's long tail. A share s in (0, 1): the short head is the most popular items
        (``popularity=``; ties: lower id first) taken one by one until they hold at
        least 1 - s of all the popularity (Elliot's Popularity with pop_ratio = 1 - s);
        every other item of the catalogue, never-seen ones included, is long tail. Or
        the long-tail items themselves: a 1-D array of item ids or a boolean mask.
    popularity : {"users", "interactions"}, default "users"
        Item popularity for ARP and the long tail: ``"users"``, the number of distinct
        users of ``train`` who interacted with the item (Elliot); ``"interactions"``,
        the sum of the item's values in ``train`` (interaction counts, as RecBole
        counts its interaction rows). Novelty and EPC always use distinct users (a
        probability of having seen the item).

    Returns
    -------
    dict
        Metric name, as given, to value, in the order asked. Means over users are
        exactly rounded sums divided by their counts.

    Examples
    --------
    >>> import numpy as np
    >>> import rankwise as rw
    >>> recommended = np.array([[0, 1], [0, 2], [0, -1]])
    >>> train = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [1, 0, 1, 0]])
    >>> rw.beyond_accuracy(recommended, ["coverage", "gini", "ARP", "personalization"], train=train)
    {'coverage': 0.75, 'gini': 0.45, 'ARP': 2.3333333333333335, 'personalization': 0.3619288125423017}
    """
    names = metric_names(metrics, "beyond-accuracy metric")
    specs = [parse_beyond_metric(name) for name in names]
    check_choice(popularity, "popularity", ("users", "interactions"))
    train_csr = None if train is None else as_csr(train, "train")
    features = None if item_features is None else _as_features(item_features)
    catalogue = _catalogue(n_items, None if train_csr is None else train_csr.shape,
                           None if features is None else features.norms.size)
    lists = as_recommended(recommended, "recommended", n_items=catalogue)
    kinds = {spec.kind for spec in specs}
    _check_needs(names, specs, catalogue, train_csr is not None, features is not None, long_tail)
    seen_by = popular = None
    if train_csr is not None:
        seen_by = np.bincount(train_csr.indices, minlength=train_csr.shape[1]).astype(np.float64)
        popular = seen_by if popularity == "users" else np.bincount(
            train_csr.indices, weights=train_csr.data, minlength=train_csr.shape[1])
    tail = _long_tail_items(long_tail, popular, catalogue) if "APLT" in kinds else None
    context = _Context(catalogue, seen_by, popular, 0 if train_csr is None else train_csr.shape[0], tail,
                       features)
    cut = [_cut(lists, spec.k) for spec in specs]
    for spec, its_lists in zip(specs, cut, strict=True):
        if spec.kind in _UNDEFINED:
            _UNDEFINED[spec.kind](its_lists, context)
    return {name: _METRICS[spec.kind](its_lists, context, spec)
            for name, spec, its_lists in zip(names, specs, cut, strict=True)}


def _check_needs(names: list[str], specs: list[BeyondSpec], catalogue: int | None, has_train: bool,
                 has_features: bool, long_tail: Any) -> None:
    """Refuse, before any work, a metric whose inputs are missing."""
    share = _is_share(long_tail)
    for name, spec in zip(names, specs, strict=True):
        if spec.kind in _NEEDS_CATALOGUE and catalogue is None:
            raise ValueError(f"metric {name!r} needs the number of items: pass n_items=, train= or "
                             "item_features=")
        if (spec.kind in _NEEDS_POPULARITY or (spec.kind == "APLT" and share)) and not has_train:
            raise ValueError(f"metric {name!r} needs item popularity: pass train= (users x items)")
        if spec.kind == "ILD" and not has_features:
            raise ValueError(f"metric {name!r} needs item_features= (items x features)")


def _exact_sum(values: np.ndarray) -> float:
    return ExactSum.of(values).sums()[0]


def _mean_over_users(lists: Lists, per_entry: np.ndarray) -> float:
    """The mean over users with a non-empty list of the mean of ``per_entry`` within the list."""
    lengths = _lengths(lists)
    sums = np.bincount(_rows(lists), weights=per_entry, minlength=lengths.size)
    listed = lengths > 0
    return ExactSum.of(sums[listed] / lengths[listed]).means()[0]


def _exposure(lists: Lists, n_items: int) -> np.ndarray:
    return np.bincount(lists.items, minlength=n_items)


def _coverage(lists: Lists, context: _Context, spec: BeyondSpec) -> float:
    assert context.n_items is not None
    return int(np.count_nonzero(_exposure(lists, context.n_items))) / context.n_items


def _gini(lists: Lists, context: _Context, spec: BeyondSpec) -> float:
    assert context.n_items is not None
    n = context.n_items
    counts = np.sort(_exposure(lists, n)).astype(np.float64)
    if lists.items.size == 0:
        return math.nan
    # Each product is an integer below 2**53 for any realistic size, so exact; the sum is exact too.
    weights = 2.0 * np.arange(1, n + 1, dtype=np.float64) - n - 1
    return _exact_sum(weights * counts) / (n * float(lists.items.size))


def _entropy(lists: Lists, context: _Context, spec: BeyondSpec) -> float:
    if lists.items.size == 0:
        return math.nan
    counts = np.bincount(lists.items)
    p = counts[counts > 0] / float(lists.items.size)
    return -_exact_sum(p * np.log(p))


def _check_seen(lists: Lists, context: _Context) -> None:
    """Novelty is infinite for an item that no user of train saw."""
    assert context.seen_by is not None
    unseen = np.flatnonzero(context.seen_by[lists.items] == 0)
    if unseen.size:
        i = int(unseen[0])
        raise ValueError(f"novelty: item {lists.items[i]} ({_where(lists, i)}) has no interaction in train, "
                         "so an infinite self-information -log2(0)")


def _novelty(lists: Lists, context: _Context, spec: BeyondSpec) -> float:
    assert context.seen_by is not None
    return _mean_over_users(lists, -np.log2(context.seen_by[lists.items] / context.n_train_users))


def _discount(positions: np.ndarray, discount: str) -> np.ndarray:
    if discount == "exp":
        return _EXP_BASE ** positions.astype(np.float64)
    if discount == "log":
        return 1.0 / np.log2(positions + 2.0)
    return np.ones(positions.size)


def _epc(lists: Lists, context: _Context, spec: BeyondSpec) -> float:
    assert context.seen_by is not None
    complement = 1.0 - context.seen_by[lists.items] / max(context.n_train_users, 1)
    disc = _discount(_positions(lists), spec.discount)
    lengths = _lengths(lists)
    rows = _rows(lists)
    gained = np.bincount(rows, weights=disc * complement, minlength=lengths.size)
    norm = np.bincount(rows, weights=disc, minlength=lengths.size)
    listed = lengths > 0
    return ExactSum.of(gained[listed] / norm[listed]).means()[0]


def _arp(lists: Lists, context: _Context, spec: BeyondSpec) -> float:
    assert context.popularity is not None
    return _mean_over_users(lists, context.popularity[lists.items])


def _aplt(lists: Lists, context: _Context, spec: BeyondSpec) -> float:
    assert context.long_tail is not None
    in_tail = np.isin(lists.items, context.long_tail, assume_unique=False)
    return _mean_over_users(lists, in_tail.astype(np.float64))


def _personalization(lists: Lists, context: _Context, spec: BeyondSpec) -> float:
    """1 - mean cosine over pairs, from sum over pairs {u, v} of |L_u & L_v| / sqrt(|L_u||L_v|)
    = sum over items i of (S_i^2 - Q_i) / 2, S_i = sum over lists holding i of 1/sqrt(|L_u|)
    and Q_i = sum of 1/|L_u|, whose sum over items is the number of lists m."""
    m = int(np.count_nonzero(_lengths(lists)))
    if m < 2:
        return math.nan
    rows = _rows(lists)
    weights = 1.0 / np.sqrt(_lengths(lists)[rows].astype(np.float64))
    per_item = np.bincount(lists.items, weights=weights)
    pairs = (_exact_sum(per_item * per_item) - m) / 2.0
    return 1.0 - pairs / (m * (m - 1) / 2.0)


def _check_directions(lists: Lists, context: _Context) -> None:
    """A zero feature vector has no cosine with another: refused where a list pairs it."""
    assert context.features is not None
    rows = _rows(lists)
    zero = np.flatnonzero((_lengths(lists)[rows] >= 2) & (context.features.norms[lists.items] == 0))
    if zero.size:
        i = int(zero[0])
        raise ValueError(f"item_features' row {lists.items[i]} is all zeros, so its cosine is undefined; it "
                         f"is recommended to {_where(lists, i)}")


def _ild(lists: Lists, context: _Context, spec: BeyondSpec) -> float:
    """Per list: 1 - (|sum of unit vectors|^2 - n) / (n (n - 1)), the mean over the n (n - 1)
    ordered pairs of 1 - cosine, from one sum of n vectors of length d."""
    import scipy.sparse

    features = context.features
    assert features is not None
    lengths = _lengths(lists)
    users = np.flatnonzero(lengths >= 2)
    if users.size == 0:
        return math.nan
    picks = scipy.sparse.csr_array((np.ones(lists.items.size), lists.items, lists.indptr),
                                   shape=(lengths.size, features.norms.size))
    block = max(1, _BLOCK_VALUES // max(1, features.unit.shape[1]))
    squared = np.empty(users.size)
    for start in range(0, users.size, block):
        summed = picks[users[start:start + block]] @ features.unit
        if is_sparse(summed):
            squared[start:start + block] = np.asarray(summed.multiply(summed).sum(axis=1)).ravel()
        else:
            squared[start:start + block] = np.einsum("ij,ij->i", summed, summed)
    n = lengths[users].astype(np.float64)
    return ExactSum.of(1.0 - (squared - n) / (n * (n - 1.0))).means()[0]


_METRICS: dict[str, Callable[[Lists, _Context, BeyondSpec], float]] = {
    "coverage": _coverage, "gini": _gini, "entropy": _entropy, "novelty": _novelty, "EPC": _epc, "ARP": _arp,
    "APLT": _aplt, "personalization": _personalization, "ILD": _ild,
}
# Checks that run before any metric is computed, for values a metric cannot take.
_UNDEFINED: dict[str, Callable[[Lists, _Context], None]] = {"novelty": _check_seen, "ILD": _check_directions}
