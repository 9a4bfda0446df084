"""TREC files and trec_eval: Qrels, Run, and trec_eval() with trec_eval 10.0's semantics.

String ids are interned once into integer codes (a hash table in C, exact); integer ids
from arrays stay integers and behave as their decimal text. Rows are grouped by query
once per object; each query's judgements go into a small hash table that the run's
documents look themselves up in, only the judged documents are ranked (the rest is
counted, never sorted), and the measures are read off their ranks, all in nogil kernels
over queries in parallel. Semantics follow trec_eval 10.0: the run's rank column is ignored; documents
are ordered by score descending, ties by document id descending (byte-wise); AP and
recall divide by R, the number of judged relevant documents; nDCG gains are the
relevance values and its ideal ranking uses every judged document (``relevance_level``
does not apply to it, as in trec_eval); queries of the qrels with no relevant document
count as 0; queries only in the run are ignored; without ``complete`` only queries in
both are evaluated (trec_eval 9.x's behaviour; trec_eval 10.0 aborts instead).
"""
from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core._enums import TieKey, TrecMeasure
from .._core._group import group_by_query
from .._core.bootstrap import MeanInterval, mean_interval
from .._core.bundled import data_path
from .._core.duplicates import duplicate_message, first_duplicate_codes
from .._core.parallel import effective_n_threads, run_alone, run_over_queries
from .._core.results import Results, mean_over_queries
from .._core.strings import StringTable
from .._core.validation import as_array, as_host, as_real, check_choice, check_flag, value_error
from ._trec import (
    ideal_dcg,
    judge,
    judgement_counts,
    rank_judged,
    rank_relevance,
    trec_measures,
)
from .arrow import arrow_columns, is_parquet, is_parquet_name, polars, read_parquet, to_table, write_parquet
from .ids import IdColumns, as_ids, byte_order, canonical_ints, id_columns
from .io import (
    PathName,
    Source,
    TrecColumns,
    check_ids,
    check_run_name,
    check_subtopic_pairs,
    read_qrels,
    read_run,
    source_name,
    write_qrels,
    write_run,
)
from .names import TrecSpec, parse_trec_measures

__all__ = ["Qrels", "Run", "TrecResults", "trec_eval", "trec_eval_part"]

_TIES = ("trec", "expected", "optimistic", "pessimistic", "stable")
# trec_eval's floor for the geometric means (gm_map, gm_bpref).
_MIN_GEO_MEAN = 1e-5
_COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
_GEOMETRIC = {"gm_map", "gm_bpref"}
_SUMMARY_ONLY = {"runid", "num_q"} | _GEOMETRIC
# Lines of the summary that are labels, not measures: where TrecResults keeps them.
_SUMMARY_LABELS = {"runid": "res.run_name", "num_q": "len(res.query_ids)"}
# Not means of quantities linear in the ranking: no closed-form expectation over ties.
_NO_EXPECTATION = {"bpref", "gm_bpref", "infAP", "iprec_at_recall", "11pt_avg", "gm_map"}
# No depth or cutoff (trec_eval's MAXLONG).
_NO_CUTOFF = 2**63 - 1
_FLOAT64_MAX = float(np.finfo(np.float64).max)
# What the ranking kernels give trec_measures: entry_rel, entry_rank, scores, entry_start, n_entries.
_Entries = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _columns_from_pairs(queries: list[Any], docs: list[Any], values: np.ndarray, what: str, context: str,
                        value_where: str) -> TrecColumns:
    return _columns_from_tables(StringTable.from_strings(queries), StringTable.from_strings(docs), values,
                                what, context, value_where)


def _columns_from_tables(query: tuple[StringTable, np.ndarray], doc: tuple[StringTable, np.ndarray],
                         values: np.ndarray, what: str, context: str, value_where: str) -> TrecColumns:
    """Rows of interned ids, checked as every builder checks them (``value_where``: see _check_values)."""
    (query_table, query_codes), (doc_table, doc_codes) = query, doc
    check_ids(query_table, query_codes, "query id", context)
    check_ids(doc_table, doc_codes, "document id", context)
    _check_values(values, what, lambda i: (query_table[int(query_codes[i])], doc_table[int(doc_codes[i])]),
                  value_where)
    return TrecColumns(query_table, query_codes, doc_table, doc_codes, values)


_ID_RULE = "ids must be str, bytes (decoded as UTF-8) or integers (their decimal text)"


def _id_text(value: object, where: str) -> str:
    """One id as text: a str as it is, bytes decoded as UTF-8, an integer as its decimal text."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{where} is {value!r}, which is not valid UTF-8 (bytes ids are decoded as "
                             "UTF-8)") from None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if (value is None or type(value).__name__ in ("NAType", "NaTType")
            or (isinstance(value, (float, np.floating)) and np.isnan(value))):
        raise TypeError(f"{where} is missing ({value if value is None else str(value)}); every row needs an "
                        f"id: {_ID_RULE}")
    if isinstance(value, (float, np.floating)):
        raise TypeError(f"{where} is the float {float(value)!r}; {_ID_RULE}, not floats: it would be the "
                        f"text {str(float(value))!r} (convert integral floats with astype(int), or pass "
                        "strings)")
    raise TypeError(f"{where} is {value!r} of type {type(value).__name__}; {_ID_RULE}")


def _ids_text(items: list[Any], where: str) -> tuple[list[Any], bool]:
    """``items`` as str ids (:func:`_id_text`; ``where`` formats a row index), and whether any was not."""
    if all(type(v) is str for v in items):
        return items, False
    return [v if type(v) is str else _id_text(v, where.format(i)) for i, v in enumerate(items)], True


def _check_values(values: np.ndarray, what: str, ids: Callable[[int], tuple[Any, Any]], where: str) -> None:
    """Refuse NaN (and, in qrels, infinity); ``where`` names the value, ``{}`` its row."""
    # Scores may be infinite (they order as numbers); relevance must be finite. NaN
    # propagates through min, so a pass or two without temporaries clears the usual case.
    if not values.size:
        return
    low = values.min()
    if (not np.isnan(low)) if what == "Run" else (np.isfinite(low) and np.isfinite(values.max())):
        return
    i = int(np.argmax(np.isnan(values) if what == "Run" else ~np.isfinite(values)))
    query, doc = ids(i)
    kind = "a number" if what == "Run" else "a finite number"
    raise ValueError(f"{where.format(i)} is {float(values[i])!r} (query {query!r}, document {doc!r}); "
                     f"a {what} value must be {kind}")


def _dict_values(values: list[Any], queries: list[Any], docs: list[Any], context: str) -> np.ndarray:
    """The values of a ``{query: {doc: value}}`` mapping as float64: real numbers only."""
    for i, value in enumerate(values):
        if not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{context}: the value for query {queries[i]!r}, document {docs[i]!r} is "
                            f"{value!r} of type {type(value).__name__}; values must be real numbers")
    try:
        return np.asarray(values, dtype=np.float64)
    except OverflowError:
        i = next(i for i, value in enumerate(values) if abs(value) > _FLOAT64_MAX)
        raise ValueError(f"{context}: the value for query {queries[i]!r}, document {docs[i]!r} is beyond "
                         "the float64 range") from None


def _check_unique_pairs(c: TrecColumns, what: str) -> None:
    repeat = first_duplicate_codes(c.query_codes, c.doc_codes, len(c.queries))
    if repeat is not None:
        a, b = repeat
        doc, query = c.docs[int(c.doc_codes[b])], c.queries[int(c.query_codes[b])]
        raise ValueError(duplicate_message(what, doc, query, a, b))


def _from_dict(mapping: object, what: str) -> TrecColumns:
    context = f"{what}.from_dict"
    if not isinstance(mapping, dict):
        raise TypeError(f"{context} takes {{query_id: {{doc_id: value}}}}, got {type(mapping).__name__}")
    queries: list[Any] = []
    docs: list[Any] = []
    values: list[Any] = []
    converted = False
    for query, judged in mapping.items():
        if not isinstance(judged, dict):
            raise TypeError(f"{context}: the value for query {query!r} must be a dict "
                            f"{{doc_id: value}}, got {type(judged).__name__}")
        if type(query) is not str:
            query, converted = _id_text(query, f"{context}: a query id"), True
        keys, changed = _ids_text(list(judged), f"{context}: a document id of query {query!r}")
        converted |= changed
        queries.extend([query] * len(judged))
        docs.extend(keys)
        values.extend(judged.values())
    numbers = _dict_values(values, queries, docs, context)
    columns = _columns_from_pairs(queries, docs, numbers, what, context, f"{context}: the value")
    if converted:
        # Keys that differ as objects can be the same id as text (1 and "1", b"d" and "d").
        _check_unique_pairs(columns, what)
    return columns


def _from_subtopic_dict(mapping: object) -> TrecColumns:
    """Rows of ``{query: {subtopic: {doc: grade}}}``, ids and grades checked as :func:`_from_dict` does."""
    context = "Qrels.from_dict(subtopics=True)"
    if not isinstance(mapping, dict):
        raise TypeError(f"{context} takes {{query_id: {{subtopic_id: {{doc_id: grade}}}}}}, got "
                        f"{type(mapping).__name__}")
    queries: list[Any] = []
    subtopics: list[Any] = []
    docs: list[Any] = []
    values: list[Any] = []
    for query, judged in mapping.items():
        query = _id_text(query, f"{context}: a query id")
        if not isinstance(judged, dict) or not all(isinstance(g, dict) for g in judged.values()):
            raise TypeError(f"{context}: the value for query {query!r} must be a dict {{subtopic_id: "
                            f"{{doc_id: grade}}}}")
        for subtopic, grades in judged.items():
            subtopic = _id_text(subtopic, f"{context}: a subtopic id of query {query!r}")
            keys = _ids_text(list(grades), f"{context}: a document id of query {query!r}")[0]
            queries.extend([query] * len(keys))
            subtopics.extend([subtopic] * len(keys))
            docs.extend(keys)
            values.extend(grades.values())
    numbers = _dict_values(values, queries, docs, context)
    columns = _columns_from_pairs(queries, docs, numbers, "Qrels", context, f"{context}: the value")
    table, codes = StringTable.from_strings(subtopics)
    check_ids(table, codes, "subtopic id", context)
    columns.subtopics = (table, codes)
    check_subtopic_pairs(columns, "Qrels")
    return columns


def _from_arrays(query_ids: Any, doc_ids: Any, values: ArrayLike, what: str, copy: bool,
                 n_threads: int | None, labels: tuple[str, ...],
                 context: str | None = None) -> TrecColumns | IdColumns:
    """Rows from three columns; messages name them by ``labels`` (``{}`` added for a row) after
    ``context`` (the caller: ``Run.from_arrays`` by default)."""
    copy = check_flag(copy, "copy")
    threads = effective_n_threads(n_threads)
    context = context or f"{what}.from_arrays"
    names = tuple(f"{context}: {label}" for label in labels)
    query_ids, doc_ids = as_host(query_ids, names[0]), as_host(doc_ids, names[1])
    values = as_host(values, names[2])
    queries, docs = as_ids(query_ids, names[0], copy), as_ids(doc_ids, names[1], copy)
    numbers = _values_array(values, names[2])
    n = numbers.shape[0]
    for name, ids in zip(names[:2], (query_ids, doc_ids), strict=True):
        if len(ids) != n:
            raise ValueError(f"{name} has {len(ids)} rows but {labels[2]} has {n}")
    where = tuple(f"{name}, row {{}}," if " " in label else f"{name}[{{}}]"
                  for name, label in zip(names, labels, strict=True))
    if queries is None or docs is None:
        numbers = _as_float64(numbers, copy)
        text = [_ids_text(np.asarray(ids).tolist(), label)[0]
                for ids, label in zip((query_ids, doc_ids), where[:2], strict=True)]
        parsed = _columns_from_pairs(text[0], text[1], numbers, what, context, where[2])
        _check_unique_pairs(parsed, what)
        return parsed
    _check_values(numbers, what, lambda i: (int(queries[i]), int(docs[i])), where[2])
    columns = id_columns(queries, docs, numbers, what, threads)
    # Converted once the grouping's scratch is freed (integer relevance needs a float64 copy).
    columns.values = _as_float64(numbers, copy)
    return columns


def _values_array(values: ArrayLike, name: str) -> np.ndarray:
    if values is None:
        raise TypeError(f"{name} must be a 1-D array of numbers, got None")
    numbers = as_array(values, name, wide="float")
    if numbers.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a 1-D array of numbers, got {numbers.dtype}")
    if numbers.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of numbers, got shape {numbers.shape}")
    return numbers


def _as_float64(numbers: np.ndarray, copy: bool) -> np.ndarray:
    return np.array(numbers, dtype=np.float64) if copy else np.ascontiguousarray(numbers, dtype=np.float64)


def _from_pandas(frame: Any, columns: dict[str, str], what: str) -> TrecColumns | IdColumns:
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{what}.from_pandas: frame must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [name for name in columns.values() if name not in frame.columns]
    if missing:
        raise ValueError(f"{what}.from_pandas: the DataFrame has no column {missing[0]!r} "
                         f"(columns: {list(frame.columns)})")
    query, doc, value = (frame[name].to_numpy() for name in columns.values())
    names = tuple(f"column {name!r}" for name in columns.values())
    return _from_arrays(query, doc, value, what, False, None, names, f"{what}.from_pandas")


def _from_arrow(data: Any, columns: dict[str, str], what: str,
                context: str | None = None) -> tuple[TrecColumns | IdColumns, str | None]:
    """Rows from a table's columns (messages start with ``context``, ``Run.from_arrow`` by
    default), and the run name the table carries, if any."""
    context = context or f"{what}.from_arrow"
    names = tuple(columns.values())
    got = arrow_columns(data, (names[0], names[1], names[2]), context)
    labels = tuple(f"column {name!r}" for name in names)
    if isinstance(got.query, np.ndarray) and isinstance(got.doc, np.ndarray):
        return _from_arrays(got.query, got.doc, got.values, what, False, None, labels, context), got.run_name
    assert isinstance(got.query, tuple) and isinstance(got.doc, tuple)  # both ids are strings then
    value_name = f"{context}: {labels[2]}"
    numbers = _as_float64(_values_array(got.values, value_name), False)
    parsed = _columns_from_tables(got.query, got.doc, numbers, what, context, f"{value_name}, row {{}},")
    _check_unique_pairs(parsed, what)
    return parsed, got.run_name


def _read_parquet(path: Source, names: tuple[str, str, str],
                  what: str) -> tuple[TrecColumns | IdColumns, str | None]:
    """A Parquet file's rows (:func:`_from_arrow`), messages naming the file."""
    name = source_name(path)
    table = read_parquet(path, names, name)
    return _from_arrow(table, dict(zip(("query", "doc", "value"), names, strict=True)), what, name)


class _Side:
    """One Qrels or Run as the join reads it: rows grouped by query, documents as int64 keys.

    ``docs`` holds document codes into ``doc_table`` (string ids) or the ids themselves
    (``doc_table`` None); ``queries`` is a StringTable or an int64 array of ids.
    """

    def __init__(self, columns: TrecColumns | IdColumns) -> None:
        values = columns.values
        self.queries: StringTable | np.ndarray
        self.doc_table: StringTable | None
        if isinstance(columns, IdColumns):
            self.queries, self.indptr, order = columns.queries, columns.indptr, None
            (docs, values), self.doc_table = columns.grouped(), None
        else:
            codes, n_queries = columns.query_codes, len(columns.queries)
            self.queries, docs, self.doc_table = columns.queries, columns.doc_codes, columns.docs
            # Codes number queries in first-seen order, so grouped rows never decrease: each
            # query's rows start where a binary search finds them. Otherwise group_by_query's
            # order is the stable sort by code (a kernel: Ctrl-C is seen).
            order = None
            if bool(np.all(codes[1:] >= codes[:-1])):
                self.indptr = np.searchsorted(codes, np.arange(n_queries + 1)).astype(np.int64, copy=False)
            else:
                self.indptr = np.zeros(n_queries + 1, dtype=np.int64)
                np.cumsum(np.bincount(codes, minlength=n_queries), out=self.indptr[1:])
                order = run_alone(partial(group_by_query, codes), codes.shape[0] // 2)[2]
        self.docs = docs if order is None else docs[order]
        self.values = values if order is None else values[order]

    @property
    def n_queries(self) -> int:
        return self.indptr.shape[0] - 1

    def per_query(self, flags: np.ndarray) -> np.ndarray:
        """How many rows of each query have ``flags`` set."""
        total = np.concatenate(([0.0], np.cumsum(flags, dtype=np.float64)))
        return total[self.indptr[1:]] - total[self.indptr[:-1]]

    def query_names(self) -> np.ndarray:
        return self.queries.to_numpy() if isinstance(self.queries, StringTable) else self.queries

    def query_byte_order(self) -> np.ndarray:
        if isinstance(self.queries, StringTable):
            return self.queries.byte_order()
        return byte_order(self.queries)


def _string_ids(ids: np.ndarray) -> tuple[StringTable, np.ndarray]:
    """Integer ids as a table of their decimal text (sorted) and each row's code."""
    unique, codes = np.unique(ids, return_inverse=True)
    return StringTable.from_strings(map(str, unique.tolist()))[0], codes.astype(np.int64)


class _TrecData:
    """Shared behaviour of Qrels and Run: rows of (query, document, value).

    Ids are strings (TrecColumns: interned into codes) or, from integer arrays,
    integers (IdColumns: kept as they are).
    """

    _value_name = "value"

    def __init__(self, columns: TrecColumns | IdColumns) -> None:
        self._columns = columns
        self._grouped: _Side | None = None

    def _side(self) -> _Side:
        if self._grouped is None:
            self._grouped = _Side(self._columns)
        return self._grouped

    @property
    def query_ids(self) -> np.ndarray:
        """Query ids, in the order first seen (str, or int64 when built from integer ids)."""
        c = self._columns
        return c.queries if isinstance(c, IdColumns) else c.queries.to_numpy()

    @property
    def n_queries(self) -> int:
        return len(self._columns.queries)

    def __len__(self) -> int:
        return self._columns.values.shape[0]

    def _text_columns(self) -> TrecColumns:
        """The rows with string ids (integer ids become their decimal text)."""
        c = self._columns
        if not isinstance(c, IdColumns):
            return c
        (queries, query_codes), (docs, doc_codes) = (_string_ids(ids) for ids in (c.query_ids, c.doc_ids))
        return TrecColumns(queries, query_codes, docs, doc_codes, c.values)

    def to_pandas(self) -> Any:
        """One row per line: query_id, doc_id and relevance (Qrels) or score (Run)."""
        import pandas as pd

        c = self._columns
        if isinstance(c, IdColumns):
            return pd.DataFrame({"query_id": c.query_ids, "doc_id": c.doc_ids, self._value_name: c.values})
        return pd.DataFrame({"query_id": c.queries.to_numpy()[c.query_codes],
                             "doc_id": c.docs.to_numpy()[c.doc_codes],
                             self._value_name: c.values})

    def _run_name(self) -> str | None:
        return None

    def to_arrow(self) -> Any:
        """A pyarrow Table, one row per line: query_id, doc_id and relevance (Qrels) or score (Run).

        Nothing is copied: string ids are dictionary-encoded (int64 indices into a
        large_string dictionary of the distinct ids, first seen first), integer ids are
        int64 and the values float64. A run's name is kept in the schema metadata
        (``b"rankwise.run_name"``), where :meth:`Run.from_arrow` finds it. Needs pyarrow
        (``pip install "rankwise[arrow]"``).

        Examples
        --------
        >>> import rankwise as rw
        >>> table = rw.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2}}).to_arrow()
        >>> table.schema
        query_id: dictionary<values=large_string, indices=int64, ordered=0>
        doc_id: dictionary<values=large_string, indices=int64, ordered=0>
        relevance: double
        >>> table.column("doc_id").to_pylist()
        ['d1', 'd2', 'd1']
        >>> rw.Qrels.from_arrow(table).to_dict()
        {'q1': {'d1': 1.0, 'd2': 0.0}, 'q2': {'d1': 2.0}}
        """
        return to_table(self._columns, self._value_name, self._run_name())

    def to_polars(self) -> Any:
        """A polars DataFrame of :meth:`to_arrow`'s table (string ids as Categorical).

        Needs polars and pyarrow (``pip install "rankwise[polars]"``).

        Examples
        --------
        >>> import rankwise as rw
        >>> frame = rw.Run.from_dict({"q1": {"d1": 0.5, "d2": 0.9}}).to_polars()
        >>> frame.columns, frame["score"].to_list()
        (['query_id', 'doc_id', 'score'], [0.5, 0.9])
        """
        pl = polars("to_polars()")
        return pl.from_arrow(self.to_arrow())

    def to_dict(self) -> dict[Any, dict[Any, float]]:
        """``{query_id: {doc_id: value}}``."""
        c = self._columns
        if isinstance(c, IdColumns):
            rows: Iterable[tuple[Any, Any, float]] = zip(c.query_ids.tolist(), c.doc_ids.tolist(),
                                                         c.values.tolist(), strict=True)
        else:
            queries, docs = c.queries.to_numpy(), c.docs.to_numpy()
            rows = ((queries[q], docs[d], v) for q, d, v in
                    zip(c.query_codes.tolist(), c.doc_codes.tolist(), c.values.tolist(), strict=True))
        out: dict[Any, dict[Any, float]] = {}
        for q, d, v in rows:
            out.setdefault(q, {})[d] = v
        return out


class Qrels(_TrecData):
    """Relevance judgements: for each query, judged documents and their relevance.

    Build with :meth:`read` (TREC qrels file ``qid iter docno rel``), :meth:`from_dict`,
    :meth:`from_pandas` or :meth:`from_arrays`. Negative relevance marks a document
    pooled but not judged (trec_eval's infAP convention).

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = rw.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}})
    >>> len(qrels), qrels.n_queries
    (3, 2)
    """

    _value_name = "relevance"

    @classmethod
    def read(cls, path: Source, *, progress: bool | None = None, subtopics: bool = False) -> Qrels:
        """Read a TREC qrels file, or a Parquet file; errors name the file and line.

        ``path`` is a path, ``"-"`` for standard input, or a binary file object.
        Compressed data is recognised by its first bytes and decompressed as it is read:
        gzip, bzip2, xz, and zstd with the optional ``zstandard`` package (``pip install
        "rankwise[zstd]"``); see :func:`rankwise.trec.io.read_run` for the details and
        errors. A name ending in ``.parquet``, or a file (or seekable stream) starting with
        Parquet's ``PAR1``, is read as Parquet (needs pyarrow): columns ``query_id``,
        ``doc_id`` and ``relevance``, as :meth:`from_arrow` takes them.

        ``progress`` shows a progress bar on stderr while a TREC file is read: None (default)
        when stderr is a terminal and tqdm is installed (``pip install "rankwise[progress]"``),
        unless the environment sets ``RANKWISE_PROGRESS=0``; False never; True always
        (ImportError without tqdm). See :func:`rankwise.trec.io.read_run`.

        ``subtopics=True`` reads the TREC Web track's diversity qrels, ``topic subtopic
        docno grade`` lines (TREC text only), for :func:`rankwise.evaluate_diversity`: the
        subtopic ids are kept, and a document may be judged once per subtopic (twice for
        one subtopic is a ValueError naming the file and both lines).
        """
        if subtopics is not False and subtopics is not True:
            raise TypeError(f"subtopics must be True or False, got {subtopics!r}")
        if is_parquet(path):
            if subtopics:
                raise ValueError("subtopics=True reads TREC text qrels (topic subtopic docno grade), "
                                 "not Parquet")
            return cls(_read_parquet(path, ("query_id", "doc_id", "relevance"), "Qrels")[0])
        return cls(read_qrels(path, progress=progress, subtopics=subtopics))

    @classmethod
    def from_dict(cls, qrels: dict[Any, Any], *, subtopics: bool = False) -> Qrels:
        """From ``{query_id: {doc_id: relevance}}``, or ``{query_id: {subtopic_id: {doc_id: grade}}}``
        with ``subtopics=True`` (subtopic qrels, as :meth:`read` reads them with ``subtopics=True``).

        Ids become text as a TREC file holds them: a ``str`` as it is, ``bytes`` decoded
        as UTF-8 (ValueError naming the id if they are not UTF-8), an integer as its
        decimal text. Any other key is a TypeError: a float (``1.0`` would become the
        text ``"1.0"``, which matches no file's ``1``), None, NaN, a bool. So is an id a
        TREC file cannot hold (ValueError): an empty one, one with whitespace or NUL, a
        query id starting with ``#``. Two keys that are the same text (``1`` and
        ``"1"``) are the same id: twice in one query, a repeated document (ValueError).
        Subtopic ids follow the same rules.

        Examples
        --------
        >>> import rankwise as rw
        >>> qrels = rw.Qrels.from_dict({"q1": {"1": {"d1": 1, "d2": 1}, "2": {"d1": 1}}}, subtopics=True)
        >>> qrels, qrels.has_subtopics
        (Qrels(1 queries, 3 judgements), True)
        """
        if subtopics is not False and subtopics is not True:
            raise TypeError(f"subtopics must be True or False, got {subtopics!r}")
        return cls(_from_subtopic_dict(qrels) if subtopics else _from_dict(qrels, "Qrels"))

    def to_dict(self) -> dict[Any, Any]:
        """``{query_id: {doc_id: relevance}}``, or ``{query_id: {subtopic_id: {doc_id: grade}}}`` for
        subtopic qrels (:attr:`has_subtopics`), as :meth:`from_dict` takes them back.

        Examples
        --------
        >>> import rankwise as rw
        >>> rw.Qrels.from_dict({"q1": {"1": {"d1": 1}, "2": {"d1": 0}}}, subtopics=True).to_dict()
        {'q1': {'1': {'d1': 1.0}, '2': {'d1': 0.0}}}
        """
        c = self._columns
        if not isinstance(c, TrecColumns) or c.subtopics is None:
            return super().to_dict()
        queries, subtopics, docs = c.queries.to_numpy(), c.subtopics[0].to_numpy(), c.docs.to_numpy()
        out: dict[Any, Any] = {}
        for q, s, d, v in zip(queries[c.query_codes], subtopics[c.subtopics[1]], docs[c.doc_codes],
                              c.values.tolist(), strict=True):
            out.setdefault(q, {}).setdefault(s, {})[d] = v
        return out

    @property
    def has_subtopics(self) -> bool:
        """Whether these are subtopic qrels (``topic subtopic docno grade``; ``subtopics=True``)."""
        return getattr(self._columns, "subtopics", None) is not None

    @classmethod
    def from_pandas(cls, frame: Any, query: str = "query_id", doc: str = "doc_id",
                    relevance: str = "relevance") -> Qrels:
        """From a DataFrame with one row per judgement, as :meth:`from_arrays` takes its columns.

        Integer id columns stay integers; other columns hold ids as :meth:`from_dict`
        takes them (a missing id, NaN or None, is a TypeError naming the column and row).
        """
        return cls(_from_pandas(frame, {"query": query, "doc": doc, "relevance": relevance}, "Qrels"))

    @classmethod
    def from_arrow(cls, data: Any, query: str = "query_id", doc: str = "doc_id",
                   relevance: str = "relevance") -> Qrels:
        """From an Arrow table with one row per judgement: columns as :meth:`from_pandas` takes them.

        ``data`` is a pyarrow Table or RecordBatch, a polars DataFrame, or any object
        exporting the Arrow C stream (``__arrow_c_stream__``). The result, and every error,
        is :meth:`from_pandas`'s for the same rows, with no Python object made per row:
        int64 and float64 columns without nulls in one chunk are used in place (as for
        :meth:`from_arrays`, do not modify them), other numbers converted once; integer id
        columns stay integers; string ids (``string``, ``large_string``, ``string_view``,
        and UTF-8 ``binary``) are interned from Arrow's buffers, dictionary-encoded ones
        through their dictionary. A null in a column used is a ValueError naming the
        column and row. Needs pyarrow (``pip install "rankwise[arrow]"``).

        Examples
        --------
        >>> import pyarrow as pa, rankwise as rw
        >>> table = pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"],
        ...                   "relevance": [1, 0, 2]})
        >>> rw.Qrels.from_arrow(table).to_dict()
        {'q1': {'d1': 1.0, 'd2': 0.0}, 'q2': {'d1': 2.0}}
        """
        return cls(_from_arrow(data, {"query": query, "doc": doc, "relevance": relevance}, "Qrels")[0])

    @classmethod
    def from_arrays(cls, query_ids: ArrayLike, doc_ids: ArrayLike, relevance: ArrayLike, *,
                    copy: bool = False, n_threads: int | None = None) -> Qrels:
        """From three 1-D arrays with one row per judgement.

        Integer ids stay integers (no strings are made, so millions of rows load in
        milliseconds); they behave exactly as their decimal text would in a qrels file.
        String, bytes and object arrays hold ids as :meth:`from_dict` takes them (str,
        UTF-8 bytes, integers; errors name the array and row) and are interned. Without
        ``copy``, integer (int64) and float64 arrays are used in place: do not modify
        them afterwards. ``n_threads`` (None: all CPUs) share the check for repeated
        documents.

        Examples
        --------
        >>> import numpy as np, rankwise as rw
        >>> qrels = rw.Qrels.from_arrays(np.array([1, 1, 2]), np.array([10, 11, 10]), np.array([1, 0, 2]))
        >>> qrels.query_ids
        array([1, 2])
        """
        return cls(_from_arrays(query_ids, doc_ids, relevance, "Qrels", copy, n_threads,
                                ("query_ids", "doc_ids", "relevance")))

    def write(self, path: PathName) -> None:
        """Write a TREC qrels file, compressed if the name ends in ``.gz``, ``.bz2``, ``.xz`` or ``.zst``.

        zstd (``.zst``) needs the optional ``zstandard`` package (``pip install
        "rankwise[zstd]"``). Relevance is written so that it reads back exactly. A name
        ending in ``.parquet`` writes Parquet (:meth:`to_arrow`'s table; needs pyarrow).
        """
        if self.has_subtopics:
            raise ValueError("writing subtopic qrels is not supported; to_dict() gives "
                             "{query_id: {subtopic_id: {doc_id: grade}}}")
        if is_parquet_name(path):
            write_parquet(path, self.to_arrow())
        else:
            write_qrels(path, self._text_columns())

    def __repr__(self) -> str:
        return f"Qrels({self.n_queries} queries, {len(self)} judgements)"


class Run(_TrecData):
    """A ranked run: for each query, retrieved documents and their scores.

    Build with :meth:`read` (TREC run file ``qid Q0 docno rank score runid``; the rank
    column is ignored, as trec_eval ignores it), :meth:`from_dict`, :meth:`from_pandas`
    or :meth:`from_arrays`. A document twice in one query is an error.

    Examples
    --------
    >>> import rankwise as rw
    >>> run = rw.Run.from_dict({"q1": {"d1": 0.5, "d2": 0.9}}, name="bm25")
    >>> run
    Run('bm25', 1 queries, 2 documents)
    """

    _value_name = "score"

    def __init__(self, columns: TrecColumns | IdColumns, name: str | None = None) -> None:
        super().__init__(columns)
        if name is None:
            name = getattr(columns, "run_name", None) or "rankwise"
        self.name = check_run_name(name)

    @classmethod
    def read(cls, path: Source, name: str | None = None, *, progress: bool | None = None) -> Run:
        """Read a TREC run file; the name defaults to its runid.

        ``path`` is a path, ``"-"`` for standard input, or a binary file object (pipes and
        FIFOs work). Compressed data is recognised by its first bytes and decompressed as
        it is read: gzip, bzip2, xz, and zstd with the optional ``zstandard`` package
        (``pip install "rankwise[zstd]"``); a name ending in ``.gz``, ``.bz2``, ``.xz`` or
        ``.zst`` must hold that format. Errors name the file (and line): ValueError for
        its content, OSError if it cannot be read or changes while it is read,
        ImportError for zstd data without ``zstandard``. Parquet is read as
        :meth:`Qrels.read` reads it, columns ``query_id``, ``doc_id`` and ``score``; the
        name defaults to the one :meth:`to_arrow` stored. ``progress``: a progress bar
        while a TREC file is read, as :meth:`Qrels.read` shows it.
        """
        if is_parquet(path):
            columns, stored = _read_parquet(path, ("query_id", "doc_id", "score"), "Run")
            return cls(columns, name if name is not None else stored)
        columns = read_run(path, progress=progress)
        if np.isnan(columns.values).any():
            i = int(np.flatnonzero(np.isnan(columns.values))[0])
            raise ValueError(f"{source_name(path)}, line {columns.line(i)}: the score is NaN; it has no "
                             "place in a ranking")
        return cls(columns, name)

    @classmethod
    def from_dict(cls, run: dict[Any, dict[Any, float]], name: str | None = None) -> Run:
        """From ``{query_id: {doc_id: score}}``; ids as :meth:`Qrels.from_dict` takes them."""
        return cls(_from_dict(run, "Run"), name)

    @classmethod
    def from_pandas(cls, frame: Any, query: str = "query_id", doc: str = "doc_id", score: str = "score",
                    name: str | None = None) -> Run:
        """From a DataFrame with one row per retrieved document; columns as :meth:`Qrels.from_pandas`."""
        return cls(_from_pandas(frame, {"query": query, "doc": doc, "score": score}, "Run"), name)

    @classmethod
    def from_arrow(cls, data: Any, query: str = "query_id", doc: str = "doc_id", score: str = "score",
                   name: str | None = None) -> Run:
        """From an Arrow table with one row per retrieved document, as :meth:`Qrels.from_arrow`.

        ``name`` defaults to the one :meth:`to_arrow` keeps in the schema metadata, else
        ``"rankwise"``.

        Examples
        --------
        >>> import pyarrow as pa, rankwise as rw
        >>> ids = pa.array(["q1", "q1", "q2"]).dictionary_encode()     # kept as a dictionary
        >>> run = rw.Run.from_arrow(pa.table({"qid": ids, "doc_id": [7, 8, 7], "score": [0.5, 0.2, 0.9]}),
        ...                         query="qid", name="bm25")
        >>> run, run.query_ids
        (Run('bm25', 2 queries, 3 documents), array(['q1', 'q2'], dtype=object))
        >>> rw.Run.from_arrow(run.to_arrow()).name
        'bm25'
        """
        columns, stored = _from_arrow(data, {"query": query, "doc": doc, "score": score}, "Run")
        return cls(columns, name if name is not None else stored)

    @classmethod
    def from_arrays(cls, query_ids: ArrayLike, doc_ids: ArrayLike, scores: ArrayLike, *,
                    name: str | None = None, copy: bool = False, n_threads: int | None = None) -> Run:
        """From three 1-D arrays with one row per retrieved document.

        Integer ids stay integers (no strings are made); they behave exactly as their
        decimal text would in a run file, so tied scores are ordered by that text,
        descending, as trec_eval orders them. Rows grouped by query (each query's rows
        contiguous) are used as they are; otherwise they are grouped once, stably.
        String, bytes and object arrays hold ids as :meth:`Qrels.from_dict` takes them
        and are interned. Without ``copy``, int64 and float64 arrays are used in place: do
        not modify them afterwards. ``n_threads`` (None: all CPUs) share the check for repeated
        documents.

        Examples
        --------
        >>> import numpy as np, rankwise as rw
        >>> run = rw.Run.from_arrays(np.array([1, 1, 2]), np.array([10, 11, 10]), np.array([0.5, 0.2, 0.9]))
        >>> run
        Run('rankwise', 2 queries, 3 documents)
        """
        return cls(_from_arrays(query_ids, doc_ids, scores, "Run", copy, n_threads,
                                ("query_ids", "doc_ids", "scores")), name)

    def _run_name(self) -> str:
        return self.name

    def write(self, path: PathName) -> None:
        """Write a TREC run file; ranks follow the order of the rows.

        Compressed if the name ends in ``.gz``, ``.bz2``, ``.xz`` or ``.zst`` (zstd needs the
        optional ``zstandard`` package); scores are written so that they read back to the
        same float. A name ending in ``.parquet`` writes Parquet (:meth:`to_arrow`'s table,
        the name kept; needs pyarrow).
        """
        if is_parquet_name(path):
            write_parquet(path, self.to_arrow())
        else:
            write_run(path, self._text_columns(), self.name)

    def __repr__(self) -> str:
        return f"Run({self.name!r}, {self.n_queries} queries, {len(self)} documents)"


class TrecResults(Results):
    """trec_eval's measures per query, their summary, and trec_eval's text layout.

    A :class:`rankwise.Results` (indexing, ``in``, iteration, ``to_pandas``,
    ``to_dict``), whose :meth:`mean` is trec_eval's summary and which prints as
    trec_eval does (:meth:`format`).

    Attributes
    ----------
    names : tuple of str
        Measure names as trec_eval prints them (``P_10``, ``iprec_at_recall_0.10``),
        in trec_eval's order.
    query_ids : ndarray
        Evaluated queries, in byte order of their ids (trec_eval's order): str, or int64
        when the qrels hold integer ids (ordered by the bytes of their decimal text).
    run_name : str
    ties : str

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = rw.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}})
    >>> run = rw.Run.from_dict({"q1": {"d1": 0.5, "d2": 0.9}})
    >>> res = rw.trec_eval(qrels, run, ["map", "P.1"])
    >>> res.mean()
    {'map': 0.5, 'P_1': 0.0}
    >>> print(res.format())
    map                   \tall\t0.5000
    P_1                   \tall\t0.0000
    """

    _summary_label = "all"
    # Queries of the qrels and of the run evaluated: what the error for none in common reports.
    _sides = (0, 0)

    def __init__(self, specs: Iterable[TrecSpec], values: np.ndarray, query_ids: np.ndarray, n_queries: int,
                 run_name: str, ties: str, totals: dict[str, float] | None = None) -> None:
        self._specs = tuple(specs)
        self._totals = dict(totals or {})
        per_query = [(spec.name, j) for j, spec in enumerate(self._specs) if spec.root not in _SUMMARY_LABELS]
        super().__init__([name for name, _ in per_query], values, query_ids, ties,
                         columns=[j for _, j in per_query])
        self._n_queries = n_queries
        self.run_name = run_name

    @classmethod
    def concat(cls, parts: Iterable[TrecResults]) -> TrecResults:
        """The results of disjoint sets of queries as one, as if evaluated together.

        ``parts`` come from one evaluation's measures and options over queries split into
        groups (:func:`rankwise.trec.evaluation.trec_eval_part` over an engine's partitions,
        each holding all rows of its queries). Rows are put in trec_eval's order, so that
        :meth:`mean` is trec_eval's summary over all of them, digit for digit.

        Raises
        ------
        ValueError
            When the parts differ in measures, run name or tie policy; when no part has a
            query to evaluate (:func:`rankwise.trec_eval`'s error; no parts: no queries).

        Examples
        --------
        >>> import rankwise as rw
        >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
        >>> run = {"q1": {"a": 0.5, "x": 0.9}, "q2": {"b": 0.1}}
        >>> parts = [rw.trec_eval(rw.Qrels.from_dict({q: qrels[q]}), rw.Run.from_dict({q: run[q]}), ["map"])
        ...          for q in ("q2", "q1")]
        >>> rw.TrecResults.concat(parts).mean()
        {'map': 0.75}
        >>> rw.trec_eval(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), ["map"]).mean()
        {'map': 0.75}
        """
        parts = list(parts)
        for part in parts[1:]:
            if (part._specs, part.run_name, part.ties) != (parts[0]._specs, parts[0].run_name, parts[0].ties):
                raise ValueError("TrecResults.concat joins parts of one evaluation: the parts differ in "
                                 "measures, run name or ties")
        held = [part for part in parts if part._n_queries]
        if not held:
            raise _nothing_to_evaluate(*(sum(part._sides[i] for part in parts) for i in (0, 1)))
        first = held[0]
        ids = np.concatenate([part.query_ids for part in held])
        rank = StringTable.from_strings(ids)[0].byte_order() if ids.dtype == object else byte_order(ids)
        order = np.argsort(rank, kind="stable")
        totals = {name: _count(sum(part._totals.get(name, 0) for part in parts))
                  for name in dict.fromkeys(name for part in parts for name in part._totals)}
        joined = cls(first._specs, np.concatenate([part._values for part in held])[order], ids[order],
                     sum(part._n_queries for part in held), first.run_name, first.ties, totals)
        joined._sides = (sum(part._sides[0] for part in parts), sum(part._sides[1] for part in parts))
        return joined

    def _column(self, name: Any) -> int:
        if isinstance(name, str) and name in _SUMMARY_LABELS:
            raise KeyError(f"{name!r} has only a summary, no per-query values (trec_eval prints it on its "
                           f"'all' line only): it is {_SUMMARY_LABELS[name]}")
        return super()._column(name)

    def __getitem__(self, name: str) -> np.ndarray:
        """Per-query values of one measure (gm_map and gm_bpref: the per-query AP / bpref).

        A name of ``names`` only: ``runid`` and ``num_q`` have no per-query values
        (KeyError; they are ``run_name`` and ``len(query_ids)``).
        """
        return super().__getitem__(name)

    def mean(self, sample_weight: Any = None, *, ci: float | None = None, n_resamples: int = 9999,
             seed: int = 0, method: str = "bca", n_threads: int | None = None) -> dict[str, Any]:
        """The summary trec_eval prints as ``all``: means, sums for counts, geometric means.

        With ``sample_weight`` or ``ci`` (as in :meth:`rankwise.Results.mean`), the means
        are the exactly rounded weighted means, and gm_map and gm_bpref the exponential of
        the weighted mean of the logarithms trec_eval averages; counts (``num_ret``, ...)
        stay sums and have no interval; each mean's interval comes from the bootstrap of its
        queries (a geometric mean's from that of its logarithms). Without either, the
        values are trec_eval's digits.
        """
        if sample_weight is None and ci is None:
            return {name: self._summary(self._column(name)) for name in self.names}
        return super().mean(sample_weight, ci=ci, n_resamples=n_resamples, seed=seed, method=method,
                            n_threads=n_threads)

    def _interval_names(self) -> tuple[str, ...]:
        return tuple(name for name in self.names if self._specs[self._column(name)].root not in _COUNTS)

    def _logs(self, name: str) -> np.ndarray:
        """A geometric mean's per-query terms: the logarithms trec_eval averages."""
        return np.log(np.maximum(self[name], _MIN_GEO_MEAN))

    def _mean_of(self, name: str, weights: np.ndarray | None) -> float:
        root = self._specs[self._column(name)].root
        if weights is None or root in _COUNTS:
            return self._summary(self._column(name))
        if root in _GEOMETRIC:
            return math.exp(mean_over_queries(self._logs(name), weights))
        return super()._mean_of(name, weights)

    def _interval(self, name: str, weights: np.ndarray | None, confidence: float, n_resamples: int, seed: int,
                  method: str, n_threads: int | None) -> MeanInterval:
        if self._specs[self._column(name)].root not in _GEOMETRIC:
            return super()._interval(name, weights, confidence, n_resamples, seed, method, n_threads)
        logs = np.ascontiguousarray(self._logs(name))
        mean = math.log(self._mean_of(name, weights))
        found = mean_interval(logs, weights, mean, confidence, n_resamples, seed, method, n_threads)
        return replace(found, mean=math.exp(found.mean), low=math.exp(found.low), high=math.exp(found.high))

    def _summary(self, j: int) -> float:
        spec, column = self._specs[j], self._values[:, j]
        if spec.name in self._totals:
            return self._totals[spec.name]
        if spec.root in _COUNTS:
            return _count(column.sum())
        if not self._n_queries:
            return 0.0
        if spec.root in _GEOMETRIC:
            column = np.log(np.maximum(column, _MIN_GEO_MEAN))
        # trec_eval's sum: 0.0 plus each query's value in its order (overflow to inf is its value too).
        with np.errstate(over="ignore", invalid="ignore"):
            mean = (float(np.cumsum(column)[-1]) + 0.0) / self._n_queries
        return math.exp(mean) if spec.root in _GEOMETRIC else mean

    def format(self, per_query: bool = False, *, summary: bool = True) -> str:
        """trec_eval's output: ``measure<TAB>query|all<TAB>value`` lines, per query first with ``-q``.

        ``summary=False`` leaves out the ``all`` lines (trec_eval's ``-n``).
        """
        lines = self._query_lines() if check_flag(per_query, "per_query") else []
        if not check_flag(summary, "summary"):
            return "\n".join(lines)
        for j, spec in enumerate(self._specs):
            if spec.root == "runid":
                lines.append(f"{'runid':<22}\tall\t{self.run_name}")
            elif spec.root == "num_q":
                lines.append(f"{'num_q':<22}\tall\t{self._n_queries}")
            else:
                lines.append(_line(spec, "all", self._summary(j)))
        return "\n".join(lines)

    def _query_lines(self) -> list[str]:
        """The per-query lines, query after query: each measure's column formatted at once."""
        queries = [str(query) for query in np.asarray(self.query_ids).tolist()]
        columns = [[f"{spec.name:<22}\t{query}\t{text}" for query, text in
                    zip(queries, _texts(spec, self._values[:, j]), strict=True)]
                   for j, spec in enumerate(self._specs) if spec.root not in _SUMMARY_ONLY]
        return [line for row in zip(*columns, strict=True) for line in row]

    def _describe(self) -> str:
        return f"run {self.run_name!r}, {self._n_queries} queries, ties={self.ties!r}"

    def _texts(self, name: str, rows: list[int]) -> list[str]:
        """The HTML table's values: trec_eval's digits (counts as integers), as :meth:`format` prints them."""
        return [text.strip() for text in _texts(self._specs[self._column(name)], self[name][rows])]

    def _summary_texts(self) -> list[str]:
        """The HTML table's ``all`` row: trec_eval's summary, as :meth:`format` prints it."""
        columns = [self._column(name) for name in self.names]
        return [_text(self._summary(j), self._specs[j].root in _COUNTS).strip() for j in columns]


def _count(total: float) -> float:
    # Counts are whole numbers, except expected counts when a depth cut splits a tie.
    return int(total) if float(total).is_integer() else float(total)


def _line(spec: TrecSpec, query: str, value: float) -> str:
    return f"{spec.name:<22}\t{query}\t{_text(value, spec.root in _COUNTS)}"


def _text(value: float, count: bool) -> str:
    """A value as trec_eval prints it: a count that is whole as an integer, else C's "%6.4f"."""
    value = _count(value) if count else value
    return str(value) if isinstance(value, int) else _c_float(value)


def _texts(spec: TrecSpec, column: np.ndarray) -> list[str]:
    """:func:`_text` of each value of one measure's column."""
    values = column.tolist()
    if spec.root in _COUNTS:
        return [_text(value, True) for value in values]
    texts = [f"{value:6.4f}" for value in values]
    for i in np.flatnonzero(np.isnan(column)).tolist():
        texts[i] = _c_float(values[i])
    return texts


def _c_float(value: float) -> str:
    """C's "%6.4f", as trec_eval prints values: Python's format but for NaN, which C signs."""
    if value != value:
        return ("-nan" if math.copysign(1.0, value) < 0 else "nan").rjust(6)
    return f"{value:6.4f}"


def _int_keys(queries: StringTable | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ids as int64 and whether each can equal an integer id (canonical decimal text)."""
    if isinstance(queries, StringTable):
        return canonical_ints(queries)
    return queries, np.ones(queries.shape[0], dtype=bool)


def _match(table: StringTable | np.ndarray, wanted: StringTable | np.ndarray) -> np.ndarray:
    """Index in ``table`` of each id of ``wanted`` (StringTable or int64 ids); -1 where absent."""
    if isinstance(table, StringTable) and isinstance(wanted, StringTable):
        return table.lookup(wanted)
    keys, usable = _int_keys(table)
    wanted_keys, wanted_usable = _int_keys(wanted)
    out = np.full(wanted_keys.shape[0], -1, dtype=np.int64)
    candidates = np.flatnonzero(usable)
    if candidates.shape[0] == 0:
        return out
    candidates = candidates[np.argsort(keys[candidates], kind="stable")]
    at = np.minimum(np.searchsorted(keys[candidates], wanted_keys), candidates.shape[0] - 1)
    found = wanted_usable & (keys[candidates[at]] == wanted_keys)
    out[found] = candidates[at[found]]
    return out


def _ranges(start: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(start[i], stop[i])``."""
    lengths = stop - start
    offsets = np.repeat(start - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return np.arange(lengths.sum(), dtype=np.int64) + offsets


# The kernels number one query's judgements in int32 (hash slots, rank buckets).
_MAX_JUDGEMENTS = 2**31 - 2


def _check_judgements_per_query(indptr: np.ndarray, qrels: _Side) -> None:
    """Refuse a qrels query with more judgements than the kernels can number."""
    counts = np.diff(indptr)
    if counts.size and counts.max() > _MAX_JUDGEMENTS:
        q = int(np.argmax(counts))
        name = qrels.query_names()[q]
        raise ValueError(f"qrels query {name.item() if isinstance(name, np.generic) else name!r} has "
                         f"{int(counts[q])} judgements; at most 2**31 - 2 = {_MAX_JUDGEMENTS} per query "
                         "are supported")


class _Join:
    """The run's evaluated queries, each with its judgements, as the kernels read them.

    Evaluated query ``q`` is run rows ``run_start[q]:run_stop[q]`` (in the run side's
    grouped order) and qrels query ``qrels_query[q]``; documents meet as int64 keys:
    ``run.docs`` (through ``doc_map`` for string ids, unless the run's codes are the
    qrels' own) against ``qrels_keys``. ``threads`` share the lookup of the run's docnos.
    """

    def __init__(self, qrels: Qrels, run: Run, complete: bool, threads: int):
        self.qrels, self.run = qrels._side(), run._side()
        qs, rs = self.qrels, self.run
        run_to_qrels = _match(qs.queries, rs.queries)
        evaluated = np.flatnonzero(run_to_qrels >= 0)
        self.qrels_query = run_to_qrels[evaluated]
        self.run_start, self.run_stop = rs.indptr[evaluated], rs.indptr[evaluated + 1]
        if complete:
            absent = np.setdiff1d(np.arange(qs.n_queries), self.qrels_query)
            self.qrels_query = np.concatenate([self.qrels_query, absent])
            zeros = np.zeros(absent.shape[0], dtype=np.int64)
            self.run_start = np.concatenate([self.run_start, zeros])
            self.run_stop = np.concatenate([self.run_stop, zeros])
        self.lengths = self.run_stop - self.run_start
        self.cost = np.concatenate(([0], np.cumsum(self.lengths)))
        self._documents(threads)

    def _documents(self, threads: int) -> None:
        qs, rs = self.qrels, self.run
        self.doc_map = np.empty(0, dtype=np.int64)
        self.qrels_keys, self.qrels_indptr = qs.docs, qs.indptr
        self.qrels_rel = np.ascontiguousarray(qs.values)
        if rs.doc_table is not None and qs.doc_table is not None:
            # A run read with the qrels' tables as its start (or whose first docnos happen to
            # be the qrels', in their order) codes every judged document as the qrels do:
            # its codes are the keys (the run's own docnos, later codes, match none).
            if not rs.doc_table.starts_with(qs.doc_table):
                self.doc_map = qs.doc_table.lookup(rs.doc_table, threads)
        elif rs.doc_table is not None:
            table, self.qrels_keys = StringTable.from_strings(map(str, qs.docs.tolist()))
            self.doc_map = table.lookup(rs.doc_table, threads)
        elif qs.doc_table is not None:
            # Integer run ids can only match qrels docnos that are canonical decimal text.
            keys, usable = canonical_ints(qs.doc_table)
            keep = usable[qs.docs]
            self.qrels_keys = keys[qs.docs][keep]
            self.qrels_rel = np.ascontiguousarray(qs.values[keep])
            self.qrels_indptr = np.concatenate(([0], np.cumsum(qs.per_query(keep).astype(np.int64))))
        self.qrels_keys = np.ascontiguousarray(self.qrels_keys, dtype=np.int64)
        _check_judgements_per_query(self.qrels_indptr, qs)

    def tie_order(self, ties: str) -> tuple[int, np.ndarray, np.ndarray, int]:
        """``_trec.rank_judged``'s ``order``: the tie key kind, the run's docnos as bytes and
        offsets when they break ties (string ids), and the label order realising the policy."""
        label_order = {"optimistic": 1, "pessimistic": -1}.get(ties, 0)
        table = self.run.doc_table
        if ties in ("stable", "expected") or table is None:
            key = TieKey.TIE_POSITION if ties in ("stable", "expected") else TieKey.TIE_DECIMAL
            return key, np.empty(0, dtype=np.uint8), np.empty(0, dtype=np.int64), label_order
        return TieKey.TIE_BYTES, table.data, table.offsets, label_order

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The join as the kernels take it (``_trec.judge``'s ``join``)."""
        return (self.run.docs, self.doc_map, self.run_start, self.run_stop, self.qrels_query,
                self.qrels_indptr, self.qrels_keys, self.qrels_rel)

    def judge(self, threads: int) -> np.ndarray:
        """Relevance value of every run row of the evaluated queries (other rows undefined)."""
        rels = np.empty(self.run.docs.shape[0])
        arrays = self.arrays()

        def task(q_start: int, q_stop: int, stop: np.ndarray) -> None:
            judge(arrays, q_start, q_stop, rels, stop)

        run_over_queries(task, self.cost, threads)
        return rels


def _gain_pairs(spec: TrecSpec) -> tuple[np.ndarray, np.ndarray]:
    """ndcg's custom gains as sorted int64 levels and their gains (kept sparse: any level works)."""
    pairs = sorted(spec.gains)
    levels = np.array([level for level, _ in pairs], dtype=np.int64)
    return levels, np.array([gain for _, gain in pairs], dtype=np.float64)


_INT_MIN = -2**31
# trec_eval's gain list holds every level from 0 to the query's largest label: beyond this many
# (a label of 256 or more) its order is not emulated, and the gains are taken in true order.
_MAX_EMULATED_LEVELS = 256


def _c_compare_gains(a: float, b: float) -> int:
    """trec_eval's comp_rel_gain: the difference of two gains converted to a C int.

    It truncates (gains less than 1 apart compare equal, so the order is not total), and
    a difference out of int's range is x86's conversion result, INT_MIN.
    """
    d = a - b
    return int(d) if -2.0**31 - 1 < d < 2.0**31 else _INT_MIN


def _glibc_msort(items: list[Any], compare: Callable[[Any, Any], int]) -> list[Any]:
    """glibc's qsort (a top-down merge sort, left first on ties) with ``compare``, as it
    orders under a comparator that is not a total order."""
    if len(items) <= 1:
        return items
    half = len(items) // 2
    left, right = _glibc_msort(items[:half], compare), _glibc_msort(items[half:], compare)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if compare(left[i][1], right[j][1]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _trec_gain_order(spec: TrecSpec, n_levels: int) -> list[tuple[int, float]]:
    """trec_eval's list of (level, gain) for a query whose largest label >= 0 is ``n_levels - 1``,
    sorted as setup_gains sorts it (m_ndcg.c walks it from the end for the ideal ranking)."""
    given = dict(spec.gains)
    items = list(spec.gains) + [(i, float(i)) for i in range(n_levels) if i not in given]
    return _glibc_msort(items, _c_compare_gains)


def _trec_ideal_blocks(order: list[tuple[int, float]],
                       counts: dict[int, int]) -> list[tuple[int, float, int]]:
    """The (level, gain, count) blocks of trec_eval's ideal ranking, in its order (m_ndcg.c).

    From the end of ``order``: nothing if that level's gain is <= 0; levels with no
    judgement are passed; the walk stops at the first judged level whose gain is <= 0.
    """
    blocks: list[tuple[int, float, int]] = []
    if not order or order[-1][1] <= 0:
        return blocks
    for level, gain in reversed(order):
        count = counts.get(level, 0)
        if count == 0:
            continue
        if gain <= 0:
            break
        blocks.append((level, gain, count))
    return blocks


def _custom_ideal(qs: _Side, spec: TrecSpec, gains: np.ndarray, evaluated: np.ndarray) -> dict[int, float]:
    """trec_eval's ideal ranking for ndcg with custom gains, where it is not the gains sorted.

    Two quirks of trec_eval 10.0 (README, "trec_eval's quirks"): its sort compares gains
    through a C int (setup_gains' comp_rel_gain), so gains less than 1 apart can come out
    in any order, and its walk stops at the first judged level of gain <= 0 in that order;
    and a query with no judgement >= 0 reuses the relevance levels of the query evaluated
    before it (form_res_rels keeps them in static memory), which shows when level -1 or -2
    has a gain. ``evaluated`` lists the evaluated qrels queries in trec_eval's order.

    Sets ``gains`` of the judgements left out to 0 and returns {qrels query: ideal DCG}
    for the queries whose ideal ranking is not the kernel's (their sum, left to right as
    trec_eval's). With integral gains and no gain for -1 or -2, nothing changes; nor for
    a query with a fractional label (trec_eval would truncate it) or one of 256 or more.
    """
    stale_shows = any(level in (-1, -2) and gain != 0 for level, gain in spec.gains)
    if not stale_shows and all(float(g).is_integer() and abs(g) < 2.0**30 for _, g in spec.gains):
        return {}
    labels = qs.values
    orders: dict = {}
    out = {}
    state = None                        # the last (levels, counts) trec_eval computed
    for g in evaluated.tolist():
        start, stop = int(qs.indptr[g]), int(qs.indptr[g + 1])
        own = labels[start:stop]
        judged = own[own >= 0]
        if judged.size:
            if not np.all(judged == np.floor(judged)) or judged.max() >= _MAX_EMULATED_LEVELS:
                state = None            # labels trec_eval would truncate, or too many levels
                continue
            levels, counts = np.unique(judged.astype(np.int64), return_counts=True)
            state = int(levels[-1]) + 1, dict(zip(levels.tolist(), counts.tolist(), strict=True))
        elif state is None:
            continue
        n_levels, level_counts = state
        if n_levels not in orders:
            orders[n_levels] = _trec_gain_order(spec, n_levels)
        blocks = _trec_ideal_blocks(orders[n_levels], level_counts)
        if judged.size:
            kept = np.array([level for level, _, _ in blocks], dtype=np.float64)
            gains[start:stop][~np.isin(own, kept)] = 0.0
        if not judged.size or any(blocks[i][1] < blocks[i + 1][1] for i in range(len(blocks) - 1)):
            total, rank = 0.0, 0
            for _, gain, count in blocks:
                for _ in range(count):
                    total += gain / math.log2(rank + 2.0)
                    rank += 1
            out[g] = total
    return out


def _gains(qs: _Side, spec: TrecSpec) -> np.ndarray:
    """Each judgement's gain as trec_eval's ideal ranking uses it (0 or below: left out).

    Judged labels >= 0 count (their custom gain if the label is an integer given one,
    else the label); trec_eval's ideal ranking never includes negative levels.
    """
    labels = np.ascontiguousarray(qs.values)
    if spec.root != "ndcg" or not spec.gains:
        # ideal_dcg keeps the positive gains only: the labels themselves, not a copy.
        return labels
    gains = np.where(labels > 0, labels, 0.0)
    levels, values = _gain_pairs(spec)
    if levels.shape[0] <= 16:
        # A pass per level; a level no float64 holds exactly (beyond 2**53) is no label's.
        for level, value in zip(levels.tolist(), values.tolist(), strict=True):
            if level >= 0 and int(float(level)) == level:
                gains[labels == float(level)] = value
        return gains
    # Integral labels below 2**63 convert to int64 exactly; larger ones match no level.
    integral = np.flatnonzero((labels >= 0) & (labels == np.floor(labels)) & (labels < 2.0**63))
    keys = labels[integral].astype(np.int64)
    at = np.minimum(np.searchsorted(levels, keys), levels.shape[0] - 1)
    found = levels[at] == keys
    gains[integral[found]] = values[at[found]]
    return gains


def _ideal(qs: _Side, specs: Sequence[TrecSpec], queries: np.ndarray,
           threads: int) -> tuple[np.ndarray, np.ndarray]:
    """Ideal DCG of each evaluated query for each measure (0 where it has none), times 2**scale.

    The scale is 0 but for queries whose largest gain is tiny: their ideal DCG is computed
    with the gains scaled into float64's normal range, exactly (``_gain.pxd``). Measures
    that share a gain definition (every ndcg_cut cutoff) share one ordering.
    """
    out = np.zeros((queries.shape[0], len(specs)))
    out_scale = np.zeros((queries.shape[0], len(specs)), dtype=np.int32)
    groups: dict[tuple[str, tuple[tuple[float, float], ...]], list[int]] = {}
    for m, spec in enumerate(specs):
        if spec.kind in (TrecMeasure.TREC_NDCG, TrecMeasure.TREC_NDCG_CUT):
            groups.setdefault((spec.root, spec.gains), []).append(m)
    for columns in groups.values():
        cutoffs = np.array([specs[m].cutoff or _NO_CUTOFF for m in columns], dtype=np.int64)
        ideal = np.empty((qs.n_queries, cutoffs.shape[0]))
        scale = np.empty(qs.n_queries, dtype=np.int32)
        gains = _gains(qs, specs[columns[0]])
        unsorted: dict[int, float] = {}
        if specs[columns[0]].gains:
            in_order = queries[np.argsort(qs.query_byte_order()[queries], kind="stable")]
            unsorted = _custom_ideal(qs, specs[columns[0]], gains, in_order)
        run_over_queries(partial(ideal_dcg, qs.indptr, gains, cutoffs, out=ideal, scale=scale), qs.indptr,
                         threads)
        for g, total in unsorted.items():
            ideal[g], scale[g] = total, 0
        out[:, columns] = ideal[queries]
        out_scale[:, columns] = scale[queries, None]
    return out, out_scale


def _iprec(point: float) -> TrecSpec:
    return TrecSpec("iprec_at_recall", "", (point,))


# 11pt_avg's hidden columns: R and the relevant retrieved, beside the iprec of each point.
_NUM_REL, _NUM_REL_RET = TrecSpec("num_rel", ""), TrecSpec("num_rel_ret", "")


def _kernel_columns(specs: Iterable[TrecSpec]) -> list[TrecSpec]:
    """The kernel's measures: every spec, plus hidden columns behind each 11pt_avg."""
    columns: list[TrecSpec] = []
    for spec in specs:
        if spec.root == "11pt_avg":
            columns.extend(_iprec(p) for p in (*spec.points, 0.0))
            columns.extend((_NUM_REL, _NUM_REL_RET))
        elif spec.root not in ("runid", "num_q"):
            columns.append(spec)
    return list(dict.fromkeys(columns))


def trec_eval(qrels: Qrels, run: Run, measures: str | Iterable[str] = ("official",), *,
              complete: bool = False, relevance_level: float = 1, depth: int | None = None,
              ties: str = "trec", n_threads: int | None = None, judged_only: bool = False) -> TrecResults:
    """Evaluate a run against qrels with trec_eval 10.0's measures and semantics.

    Parameters
    ----------
    qrels : Qrels
    run : Run
    measures : str or list of str
        trec_eval measure names with trec_eval's parameter syntax: ``map``, ``P.5,10``
        or ``P_10``, ``ndcg_cut.10,20``, ``iprec_at_recall..1,.5``, ``ndcg.1=3,2=9``
        (custom gains), ``utility.2,-1,0,0``, ``Rprec_mult.0.5``, ``success.1,5``,
        ``11pt_avg..25,.5,.75``, ``unj.5,10`` (the fraction of the top k not judged);
        or the sets ``official`` (trec_eval's default), ``all_trec`` and ``set``.
        Also ir_measures' ``Judged@10`` (``Judged.10``, ``Judged_10``): the fraction
        of the documents in the top 10 that are judged (a judgement >= 0), over
        min(10, retrieved); 0 for a query with nothing retrieved. Measures come out in
        trec_eval's order. Every measure asked is computed: ``["P.1", "P.2"]`` gives P_1 and P_2, and
        ``["official", "P.1"]`` official's P cutoffs and P_1, where trec_eval (and
        ``rankwise eval``) keeps the parameters of the first ``-m`` that gives a
        measure any (P_1 alone in both).
    complete : bool
        trec_eval's ``-c``: average over every query of the qrels; queries the run
        lacks score 0.
    relevance_level : float
        trec_eval's ``-l``: labels at or above it are relevant (binary measures; nDCG
        uses the labels as gains regardless, as trec_eval does). A finite number >= 0
        (0: every judged document is relevant), kept as given: 1.5 means labels >= 1.5
        (trec_eval, and ``rankwise eval -l 1.5``, read 1).
    depth : int, optional
        trec_eval's ``-M``: only the top ``depth`` documents of each query count; 0
        evaluates empty rankings, as trec_eval does (iprec_at_recall at a point whose
        cutoff rounds to 0, and then 11pt_avg, are NaN: 0 / 0).
    ties : {"trec", "expected", "optimistic", "pessimistic", "stable"}
        ``"trec"`` (default): trec_eval's order, document id descending among tied
        scores. ``"expected"``: the exact expectation over orderings of tied scores,
        for the measures that are linear in the ranking's hit counts or are AP, RR,
        success and nDCG (bpref, infAP, iprec_at_recall, 11pt_avg and the geometric
        means raise). ``"optimistic"`` / ``"pessimistic"``: relevant first / last
        among ties. ``"stable"``: the order of the run's rows.
    n_threads : int, optional
        Threads over queries; None or -1 for all CPUs.
    judged_only : bool
        trec_eval's ``-J``: documents without a judgement >= 0 for the query (absent
        from the qrels, or judged negative) leave each ranking, after ``depth`` cut it,
        before any measure; the judged ones close up (ranks 1, 2, ... among
        themselves) and ``num_ret`` counts them. With ``ties="expected"`` it cannot
        be combined with ``depth`` (the cut would split tie groups that the removal
        then changes).

    Returns
    -------
    TrecResults
        ``.mean()`` (the ``all`` line), ``res["P_10"]`` per query, ``.format()``
        (trec_eval's text), ``.to_pandas()``.

    Raises
    ------
    ValueError
        When the run and the qrels share no query (trec_eval exits with an error then;
        ``complete=True`` evaluates the qrels' queries as missing ones), or either has
        no query; for a measure name or parameter that is not allowed.

    Notes
    -----
    The means are trec_eval's: each query's value added left to right in trec_eval's
    query order (byte order of the ids), then divided by the number of queries. Without
    ``complete``, queries of the qrels missing from the run are left out (trec_eval 9.x;
    trec_eval 10.0 exits with an error). trec_eval 10.0's quirks are reproduced:

    * ``run.name`` (the ``runid`` line) is the runid of the run file's last line.
    * With ``complete``, the ``num_rel`` summary counts every judgement > 0 of the qrels,
      whatever ``relevance_level`` is (qrels ``q1: a=1, b=2``, ``q2: c=1``, a run for q1
      only, ``relevance_level=2``: per query 1 and 0, ``mean()["num_rel"]`` 3).
    * With ``complete``, a query missing from the run is scored on a ranking of one
      unjudged document, then only ``num_ret`` and ``utility`` (without parameters) are
      reset to 0: ``utility.1,-1,0,0`` gives it -1.
    * ``ndcg`` with custom gains orders the levels by gain compared through a C int (gains
      less than 1 apart compare equal), and its ideal ranking stops at the first judged
      level of gain <= 0 in that order: qrels ``a=1, b=2, c=0`` ranked a, b, c give
      ``ndcg.1=0.5,2=1`` 1.1309 (the ideal ranking holds b only).
    * For ``ndcg``'s ideal ranking, a query with no judgement >= 0 reuses the relevance
      levels of the query evaluated before it; this shows only when level -1 or -2 has a
      gain (qrels ``q1: a=1``, ``q2: b=-1``, ``x`` retrieved for q2: ``ndcg.-1=1`` of q2
      is 1.0, its ideal DCG being q1's).

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = rw.Qrels.from_dict({"q1": {"a": 1, "b": 0, "c": 1}})
    >>> run = rw.Run.from_dict({"q1": {"a": 0.5, "b": 0.5, "c": 0.2}})
    >>> rw.trec_eval(qrels, run, ["map", "recip_rank"]).mean()     # tie: "b" before "a"
    {'map': 0.5833333333333333, 'recip_rank': 0.5}
    >>> rw.trec_eval(qrels, run, ["map", "recip_rank"], ties="expected").mean()
    {'map': 0.7083333333333333, 'recip_rank': 0.75}

    Only the judged documents (trec_eval -J): "x" is not in the qrels.

    >>> run = rw.Run.from_dict({"q1": {"x": 0.9, "a": 0.5, "c": 0.2}})
    >>> rw.trec_eval(qrels, run, ["P.1", "unj.1"]).mean()
    {'P_1': 0.0, 'unj_1': 1.0}
    >>> rw.trec_eval(qrels, run, ["P.1", "unj.1"], judged_only=True).mean()
    {'P_1': 1.0, 'unj_1': 0.0}
    """
    return _trec_eval(qrels, run, measures, complete, relevance_level, depth, ties, n_threads, part=False,
                      judged_only=judged_only)


def trec_eval_part(qrels: Qrels, run: Run, measures: str | Iterable[str] = ("official",), *,
                   complete: bool = False, relevance_level: float = 1, depth: int | None = None,
                   ties: str = "trec", n_threads: int | None = None,
                   judged_only: bool = False) -> TrecResults:
    """:func:`trec_eval` of one part of the queries, which :meth:`TrecResults.concat` joins.

    For an engine whose partitions each hold every judgement and every retrieved document
    of their queries: a part with no query to evaluate gives no rows, where
    :func:`trec_eval` raises; the parts joined raise that error if none has a row.
    """
    return _trec_eval(qrels, run, measures, complete, relevance_level, depth, ties, n_threads, part=True,
                      judged_only=judged_only)


def _trec_eval(qrels: Qrels, run: Run, measures: str | Iterable[str], complete: bool, relevance_level: float,
               depth: int | None, ties: str, n_threads: int | None, part: bool,
               judged_only: bool = False) -> TrecResults:
    if not isinstance(qrels, Qrels) or not isinstance(run, Run):
        raise TypeError("trec_eval(qrels, run, ...) takes a Qrels and a Run (see Qrels.read, Run.read)")
    if qrels.has_subtopics:
        raise ValueError("qrels are subtopic qrels (read with subtopics=True): evaluate them with "
                         "rankwise.evaluate_diversity")
    check_choice(ties, "ties", _TIES)
    complete = check_flag(complete, "complete")
    judged_only = check_flag(judged_only, "judged_only")
    if judged_only and ties == "expected" and depth is not None:
        raise ValueError("judged_only=True with depth= cannot honour ties='expected' (the depth cut would "
                         "split tie groups that removing the unjudged documents then changes); pass "
                         "ties='trec', 'optimistic', 'pessimistic' or 'stable', or no depth")
    level = _check_level(relevance_level)
    limit = _check_depth(depth)
    threads = effective_n_threads(n_threads)
    specs = parse_trec_measures(measures)
    _check_expected(specs, ties, depth)
    join = _Join(qrels, run, complete, threads)
    if not join.qrels_query.shape[0] or not (run.n_queries or part):
        if not part:
            raise _nothing_to_evaluate(qrels.n_queries, run.n_queries)
        values = np.empty((0, len(specs)))
    else:
        kernel_specs = _kernel_columns(specs)
        if limit:
            values = _evaluate(join, kernel_specs, ties, level, limit, threads, judged_only)
        else:
            values = _empty_rankings(kernel_specs, _judgement_counts(join, level, threads)[0])
        values = _assemble(specs, kernel_specs, values)
    results = _results(join, specs, values, run.name, ties, complete)
    results._sides = (qrels.n_queries, run.n_queries)
    return results


def _results(join: _Join, specs: Sequence[TrecSpec], values: np.ndarray, run_name: str, ties: str,
             complete: bool) -> TrecResults:
    """The values of the evaluated queries, in trec_eval's order: byte order of their ids."""
    order = np.argsort(join.qrels.query_byte_order()[join.qrels_query], kind="stable")
    names = join.qrels.query_names()[join.qrels_query]
    # trec_eval's quirk: with -c, the num_rel summary counts every judgement > 0 of the qrels,
    # whatever relevance_level is.
    totals = {"num_rel": _count(int(np.count_nonzero(join.qrels.values > 0)))} if complete else {}
    return TrecResults(specs, values[order], names[order], join.qrels_query.shape[0], run_name, ties, totals)


def _check_depth(depth: object) -> int:
    if depth is None:
        return _NO_CUTOFF
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
        raise TypeError(f"depth must be an integer (trec_eval's -M), got {depth!r}")
    if not 0 <= depth <= _NO_CUTOFF:
        raise ValueError(f"depth must be an integer from 0 to 2**63 - 1 (trec_eval's -M), got {depth!r}")
    return int(depth)


def _check_level(relevance_level: object) -> float:
    """trec_eval's -l: a finite number >= 0 (0 makes every judged document relevant)."""
    level = as_real(relevance_level, "relevance_level")
    if not (np.isfinite(level) and level >= 0):
        raise ValueError(f"relevance_level must be a finite number >= 0 (trec_eval's -l), got "
                         f"{relevance_level!r}; below 0, trec_eval 10.0 counts unjudged documents as "
                         "relevant where they are ranked but not in R (map exceeds 1)")
    return level


def _nothing_to_evaluate(n_qrels: int, n_run: int) -> ValueError:
    """No query to evaluate: trec_eval 10.0 exits with an error then (its files are never empty).

    Carries ``qrels_queries`` and ``run_queries`` for the command line to word its remedy.
    """
    if not n_qrels or not n_run:
        which = "qrels have" if not n_qrels else "run has"
        message = f"nothing to evaluate: the {which} no queries"
    else:
        message = (f"no query of the run has judgements: the qrels have {n_qrels} queries and the run "
                   f"{n_run}, none in common (trec_eval exits with an error); complete=True evaluates the "
                   "qrels' queries, those the run lacks scoring 0, as trec_eval -c does")
    return value_error(message, qrels_queries=n_qrels, run_queries=n_run)


def _no_expectation(names: list[str], measures: list[str], by_depth: list[str]) -> ValueError:
    """The error for ties='expected' asked of measures without a closed form.

    A plain ValueError that carries the facts for the command line to word its own
    remedy: ``measures``, the refused measures' roots (``iprec_at_recall``), and
    ``by_depth``, those refused only because a depth is set.
    """
    return value_error(f"ties='expected' has no closed form for {', '.join(names)} (not linear in the "
                       "ranking); use ties='trec', 'optimistic', 'pessimistic' or 'stable' for them",
                       measures=measures, by_depth=by_depth)


def _check_expected(specs: Sequence[TrecSpec], ties: str, depth: int | None) -> None:
    if ties != "expected":
        return
    refused = [s for s in specs if s.root in _NO_EXPECTATION]
    by_depth = [s for s in specs if s.root in ("set_map", "set_F")] if depth is not None else []
    if refused or by_depth:
        raise _no_expectation([s.name for s in refused + by_depth],
                              list(dict.fromkeys(s.root for s in refused + by_depth)),
                              list(dict.fromkeys(s.root for s in by_depth)))


def _evaluate(join: _Join, specs: Sequence[TrecSpec], ties: str, level: float, limit: int,
              threads: int, judged_only: bool = False) -> np.ndarray:
    n_queries = join.qrels_query.shape[0]
    entries = _rank_dense(join, threads) if ties == "expected" else _rank_judged(join, ties, threads)
    num_ret = np.minimum(join.lengths, limit)
    if judged_only:
        entries, num_ret = _judged_entries(entries, limit, ties == "expected")
    qs = join.qrels
    num_rel, num_nonrel = _judgement_counts(join, level, threads)
    kinds = np.array([s.kind for s in specs], dtype=np.int32)  # kernel columns: none is None
    params = np.zeros((len(specs), 4))
    cutoffs = np.ones(len(specs), dtype=np.int64)
    ideal, ideal_scale = _ideal(qs, specs, join.qrels_query, threads)
    pairs = [_gain_pairs(s) for s in specs]
    gain_levels = np.concatenate([np.empty(0, dtype=np.int64), *(levels for levels, _ in pairs)])
    gain_values = np.concatenate([np.empty(0), *(values for _, values in pairs)])
    gain_start = np.concatenate(([0], np.cumsum([levels.shape[0] for levels, _ in pairs]))).astype(np.int64)
    for m, spec in enumerate(specs):
        if spec.cutoff is not None:
            cutoffs[m] = spec.cutoff
        else:
            params[m, :len(spec.params)] = spec.params
    out = np.empty((n_queries, len(specs)))

    counts = (num_ret, num_rel, num_nonrel)
    columns = (kinds, params, cutoffs, ideal, ideal_scale, gain_levels, gain_values, gain_start)

    def measure(q_start: int, q_stop: int, stop: np.ndarray) -> None:
        trec_measures(entries, counts, columns, level, ties == "expected", q_start, q_stop, out, stop)

    run_over_queries(measure, join.cost, threads)
    absent = num_ret == 0
    if absent.any():
        if judged_only:
            # trec_eval's stand-in ranking of one unjudged document is emptied by -J too.
            out[absent] = _empty_rankings(specs, num_rel[absent])
        else:
            _absent(specs, out, absent, num_rel, ideal, ideal_scale)
    return out


def _judged_entries(entries: _Entries, limit: int, dense: bool) -> tuple[_Entries, np.ndarray]:
    """trec_eval's -J: the entries of the judged documents (relevance >= 0) within the depth,
    ranked 1, 2, ... among themselves in their order, and their count as each query's num_ret.

    As form_res_rels.c does it: the depth cuts the whole ranking first, then unjudged
    documents (absent from the qrels, or judged negative) leave it.
    """
    rel, rank, scores, start, n = entries
    rows = _ranges(start, start + n)
    query = np.repeat(np.arange(n.shape[0]), n)
    keep = rel[rows] >= 0
    if not dense:
        keep &= rank[rows] <= limit
    rows, query = rows[keep], query[keep]
    n_kept = np.bincount(query, minlength=n.shape[0]).astype(np.int64)
    new_start = np.concatenate(([0], np.cumsum(n_kept)[:-1])).astype(np.int64)
    new_rank = (np.arange(rows.shape[0]) - new_start[query] + 1).astype(np.int64) if not dense else rank
    kept_scores = scores[rows] if dense else scores
    return (np.ascontiguousarray(rel[rows]), new_rank, kept_scores, new_start, n_kept), n_kept


def _judgement_counts(join: _Join, level: float, threads: int) -> tuple[np.ndarray, np.ndarray]:
    """R and the judged nonrelevant documents of each evaluated query."""
    qs = join.qrels
    num_rel, num_nonrel = np.empty(qs.n_queries), np.empty(qs.n_queries)
    counts = partial(judgement_counts, qs.indptr, qs.values, level, num_rel=num_rel, num_nonrel=num_nonrel)
    run_over_queries(counts, qs.indptr, threads)
    return num_rel[join.qrels_query], num_nonrel[join.qrels_query]


def _empty_rankings(specs: Sequence[TrecSpec], num_rel: np.ndarray) -> np.ndarray:
    """Values when every ranking is empty (depth=0, trec_eval's -M 0), as trec_eval 10.0 has them.

    Queries the run lacks (complete=True) too: trec_eval cuts its stand-in ranking to no
    document as well. Every measure is 0 but num_rel (R), utility (its coefficients of
    the relevant and unretrieved: p3 R - p4 R) and iprec_at_recall at the points whose
    cutoff lround(point R) is 0 or less: 0 / 0 retrieved, NaN (printed ``-nan``); so
    11pt_avg is NaN too, whenever one of its points is not skipped.
    """
    out = np.zeros((num_rel.shape[0], len(specs)))
    for m, spec in enumerate(specs):
        if spec.root == "num_rel":
            out[:, m] = num_rel
        elif spec.root == "utility":
            p = spec.params
            with np.errstate(over="ignore", invalid="ignore"):  # inf and nan are trec_eval's values too
                out[:, m] = p[0] * 0.0 + p[1] * 0.0 + p[2] * num_rel + p[3] * (0.0 - num_rel)
        elif spec.root == "iprec_at_recall":
            # x86's 0.0 / 0.0 is the NaN with the sign bit set, which C prints as -nan.
            out[:, m] = np.where(_lround(spec.params[0] * num_rel) <= 0, -np.nan, 0.0)
    return out


def _absent(specs: Sequence[TrecSpec], out: np.ndarray, absent: np.ndarray, num_rel: np.ndarray,
            ideal: np.ndarray, ideal_scale: np.ndarray) -> None:
    """Values of the queries the run lacks (complete=True), as trec_eval 10.0 has them.

    trec_eval evaluates them against a ranking of one unjudged document, then zeroes
    num_ret and the measure named exactly ``utility``. So every measure is 0 but num_rel,
    utility with explicit coefficients (p2 + p3 R - p4 (1 + R)), and ndcg with a gain for
    level -1 (documents absent from the qrels): that gain at rank 1 over the ideal DCG
    (which is times 2**ideal_scale).
    """
    out[absent] = 0.0
    r = num_rel[absent]
    for m, spec in enumerate(specs):
        if spec.root == "num_rel":
            out[absent, m] = r
        elif spec.root == "utility" and spec.name != "utility":
            p = spec.params
            with np.errstate(over="ignore", invalid="ignore"):  # inf and nan are trec_eval's values too
                out[absent, m] = p[0] * 0.0 + p[1] * 1.0 + p[2] * r + p[3] * (-1.0 - r)
        elif spec.root == "ndcg" and spec.gains:
            levels, values = _gain_pairs(spec)
            gain = values[levels == -1].sum()
            if gain != 0:
                best = ideal[absent, m]
                # gain / (best / 2**scale) from the gain's significand (normal even when the
                # gain is subnormal), then one rounding; trec_eval's value overflows to inf too.
                significand, exponent = np.frexp(gain)
                with np.errstate(over="ignore"):
                    ratio = np.ldexp(significand / np.where(best > 0, best, 1.0),
                                     exponent + ideal_scale[absent, m])
                out[absent, m] = np.where(best > 0, ratio, 0.0)


def _rank_judged(join: _Join, ties: str, threads: int) -> _Entries:
    """Ranks of the judged documents only (the deterministic policies): trec_measures' entries."""
    capacity = np.minimum(join.lengths, np.diff(join.qrels_indptr)[join.qrels_query])
    entry_start = np.concatenate(([0], np.cumsum(capacity)[:-1])).astype(np.int64)
    entry_rank = np.empty(int(capacity.sum()), dtype=np.int64)
    entry_rel = np.empty(entry_rank.shape[0])
    n_entries = np.empty(join.lengths.shape[0], dtype=np.int64)
    order = join.tie_order(ties)
    scores = np.ascontiguousarray(join.run.values)
    arrays, out = join.arrays(), (entry_start, entry_rank, entry_rel, n_entries)

    def task(q_start: int, q_stop: int, stop: np.ndarray) -> None:
        rank_judged(scores, arrays, order, out, q_start, q_stop, stop)

    run_over_queries(task, join.cost, threads)
    return entry_rel, entry_rank, np.empty(0), entry_start, n_entries


def _rank_dense(join: _Join, threads: int) -> _Entries:
    """Every document ranked (the expectation over ties needs whole tie groups)."""
    relevance, scores = join.judge(threads), np.ascontiguousarray(join.run.values)
    if not np.all((join.run_start == join.cost[:-1]) | (join.lengths == 0)):
        # Only some of the run's queries are evaluated, or in another order: their rows.
        rows = _ranges(join.run_start, join.run_stop)
        relevance, scores = relevance[rows], scores[rows]
        del rows
    ranked, ranked_scores = np.empty(join.cost[-1]), np.empty(join.cost[-1])

    def task(q_start: int, q_stop: int, stop: np.ndarray) -> None:
        rank_relevance(scores, relevance, join.cost, q_start, q_stop, ranked, ranked_scores, stop)

    run_over_queries(task, join.cost, threads)
    return ranked, np.empty(0, dtype=np.int64), ranked_scores, join.cost[:-1].copy(), join.lengths


def _assemble(specs: Sequence[TrecSpec], kernel_specs: list[TrecSpec], values: np.ndarray) -> np.ndarray:
    """One column per printed measure (11pt_avg: from its hidden columns)."""
    column = {spec: i for i, spec in enumerate(kernel_specs)}
    out = np.zeros((values.shape[0], len(specs)))
    for j, spec in enumerate(specs):
        if spec.root == "11pt_avg":
            out[:, j] = _eleven_point(spec.points, lambda p: values[:, column[_iprec(p)]],
                                      values[:, column[_NUM_REL]], values[:, column[_NUM_REL_RET]])
        elif spec in column:
            out[:, j] = values[:, column[spec]]
    return out


def _lround(x: np.ndarray) -> np.ndarray:
    """C's lround (half away from zero), as floats; ``x - trunc(x)`` is exact."""
    whole = np.trunc(x)
    return whole + np.where(np.abs(x - whole) >= 0.5, np.sign(x), 0.0)


def _eleven_point(points: Sequence[float], iprec: Callable[[float], np.ndarray], num_rel: np.ndarray,
                  rel_ret: np.ndarray) -> np.ndarray:
    """11pt_avg per query exactly as trec_eval 10.0's m_11pt_avg.c computes it.

    trec_eval keeps the points as given (unsorted, repeated) and walks them from the
    last: trailing points beyond the relevant retrieved (lround(point R) > rel_ret) add
    0; then each point whose cutoff does not exceed the previous one's, and is >= 1, adds
    its interpolated precision; from the first that breaks that, every remaining point
    adds the best precision anywhere (iprec at 0). The sum runs in that order.
    """
    total = np.zeros(num_rel.shape[0])
    skipping = np.ones(num_rel.shape[0], dtype=bool)
    matching = np.ones(num_rel.shape[0], dtype=bool)
    previous = rel_ret.copy()
    best = iprec(0.0)
    for point in reversed(points):
        cut = _lround(point * num_rel)
        skipping &= cut > rel_ret
        matching &= ~skipping & (cut >= 1) & (cut <= previous) | skipping
        hit = matching & ~skipping
        previous = np.where(hit, cut, previous)
        total += np.where(skipping, 0.0, np.where(hit, iprec(point), best))
    return total / len(points)


def read_example() -> tuple[Qrels, Run]:
    """The bundled example qrels and run (``rankwise eval --example``)."""
    return Qrels.read(data_path("example.qrels")), Run.read(data_path("example.run"))
