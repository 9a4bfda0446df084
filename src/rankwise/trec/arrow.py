"""Qrels and Runs as Arrow tables: pyarrow tables and record batches, polars, Parquet files.

pyarrow (the ``arrow`` extra) and polars (the ``polars`` extra) are imported when first
needed, so that rankwise imports without them. No Python object is made per row: int64
and float64 columns without nulls in one chunk are read in place (as NumPy views); other
numbers are converted once; string ids are interned from Arrow's own buffers (its offsets
and UTF-8 bytes), and a dictionary-encoded column by its dictionary, whose indices become
the codes. :meth:`Qrels.to_arrow` gives ids back dictionary-encoded, its dictionary
the id table's own bytes.
"""
from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from .._core.strings import StringTable
from .ids import IdColumns, as_ids
from .io import PathName, TrecColumns, first_invalid_row

__all__ = ["ArrowColumns", "RUN_NAME_KEY", "arrow_columns", "is_parquet", "is_parquet_name", "polars",
           "pyarrow", "read_parquet", "to_table", "write_parquet"]

# Where to_arrow keeps a run's name: the table's schema metadata (Parquet keeps it too).
RUN_NAME_KEY = b"rankwise.run_name"
_PARQUET_MAGIC = b"PAR1"
# One id column: int64 ids, or a table of strings and each row's code.
Ids: TypeAlias = "np.ndarray | tuple[StringTable, np.ndarray]"


def pyarrow(needed_by: str) -> Any:
    """The pyarrow module (its compute functions loaded, as ``pa.compute``), or an ImportError
    naming the extra that installs it."""
    try:
        import pyarrow as pa
        import pyarrow.compute  # noqa: F401
    except ImportError:
        raise ImportError(f'{needed_by} needs pyarrow: pip install "rankwise[arrow]"') from None
    return pa


def polars(needed_by: str) -> Any:
    """The polars module (which needs pyarrow here), or an ImportError naming the extra."""
    try:
        import polars as pl
        import pyarrow  # noqa: F401  (polars converts through it)
    except ImportError:
        raise ImportError(f'{needed_by} needs polars and pyarrow: pip install "rankwise[polars]"') from None
    return pl


def _parquet(needed_by: str) -> Any:
    pyarrow(needed_by)
    import pyarrow.parquet as pq
    return pq


@dataclass(eq=False)
class ArrowColumns:
    """The three columns of a table as the builders take them.

    Both id columns are int64 arrays (integer ids), or both ``(StringTable, codes)``
    (string ids; integers beside strings become their decimal text, as in
    ``from_pandas``). ``values`` is a NumPy array of numbers (a view where it can be);
    ``run_name`` the name :func:`to_table` stored, if any.
    """

    query: Ids
    doc: Ids
    values: np.ndarray
    run_name: str | None


def as_table(data: Any, context: str) -> Any:
    """``data`` as a pyarrow Table: a Table, a RecordBatch, a polars DataFrame, or any object
    exporting the Arrow C stream (``__arrow_c_stream__``)."""
    pa = pyarrow(context)
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    pl = sys.modules.get("polars")
    if pl is not None and isinstance(data, pl.DataFrame):
        return data.to_arrow()
    if hasattr(type(data), "__arrow_c_stream__"):
        return pa.table(data)
    raise TypeError(f"{context}: data must be a pyarrow Table or RecordBatch, a polars DataFrame, or an "
                    f"object with __arrow_c_stream__, got {type(data).__name__}")


def arrow_columns(data: Any, names: tuple[str, str, str], context: str) -> ArrowColumns:
    """The query, document and value columns ``names`` of ``data`` (see :func:`as_table`).

    Errors start with ``context`` and name the column: a missing one (ValueError), a null
    in a used column (ValueError, with its row), ids that are neither integers nor strings,
    values that are not numbers (TypeError), string ids that are not UTF-8 (ValueError).
    """
    pa = pyarrow(context)
    table = as_table(data, context)
    labels = tuple(f"{context}: column {name!r}" for name in names)
    for name in names:
        found = len(table.schema.get_all_field_indices(name))
        if found != 1:
            problem = "no column" if not found else f"{found} columns named"
            raise ValueError(f"{context}: the table has {problem} {name!r} (columns: {table.column_names})")
    columns = [table.column(name) for name in names]
    for i, label in enumerate(labels):
        _check_nulls(pa, columns[i], label)
        kind = columns[i].type
        if pa.types.is_dictionary(kind) and not _is_text(pa, kind.value_type):
            columns[i] = columns[i].cast(kind.value_type)   # dictionaries of numbers: decoded
    kinds = [_id_kind(pa, column.type) for column in columns[:2]]
    if "text" in kinds and "integer" in kinds:
        # One column of integer ids beside one of strings: both text, as from_pandas has them.
        columns[kinds.index("integer")] = columns[kinds.index("integer")].cast(pa.large_string())
        kinds = ["text", "text"]
    query, doc = (_ids(pa, column, kind, label)
                  for column, kind, label in zip(columns[:2], kinds, labels[:2], strict=True))
    stored = (table.schema.metadata or {}).get(RUN_NAME_KEY)
    return ArrowColumns(query, doc, _values(pa, columns[2], labels[2]),
                        None if stored is None else stored.decode("utf-8", "replace"))


def _check_nulls(pa: Any, column: Any, label: str) -> None:
    # A dictionary's own nulls count where rows point at them; null_count does not see those.
    dictionary_nulls = pa.types.is_dictionary(column.type) and any(
        chunk.dictionary.null_count for chunk in column.chunks)
    if not column.null_count and not dictionary_nulls:
        return
    row = pa.compute.index(pa.compute.is_null(column), True).as_py()
    if row >= 0:
        raise ValueError(f"{label} is null at row {row}; every row needs a value (drop or fill the nulls "
                         "first)")


def _is_text(pa: Any, kind: Any) -> bool:
    t = pa.types
    return bool(t.is_string(kind) or t.is_large_string(kind) or t.is_binary(kind) or t.is_large_binary(kind)
                or getattr(t, "is_string_view", bool)(kind) or getattr(t, "is_binary_view", bool)(kind))


def _id_kind(pa: Any, kind: Any) -> str:
    """"text" (strings, bytes, and dictionaries of them), "integer", or "other"."""
    if _is_text(pa, kind.value_type if pa.types.is_dictionary(kind) else kind):
        return "text"
    return "integer" if pa.types.is_integer(kind) else "other"


def _ids(pa: Any, column: Any, kind: str, label: str) -> Ids:
    if kind == "text":
        if pa.types.is_dictionary(column.type):
            table, codes = _dictionary_ids(pa, column)
        else:
            table, codes = StringTable.from_utf8(*_spans(pa, _one_chunk(pa, column)))
        _check_utf8(table, codes, label)
        return table, codes
    if kind == "integer" or pa.types.is_floating(column.type) or pa.types.is_boolean(column.type):
        # as_ids refuses floats and booleans with from_arrays' words.
        ids = as_ids(_numpy(column), label, False)
        assert ids is not None  # numbers are not strings
        return ids
    raise TypeError(f"{label} must hold integers or strings, got {column.type}")


def _dictionary_ids(pa: Any, column: Any) -> tuple[StringTable, np.ndarray]:
    """A dictionary-encoded column: its dictionary interned once, its indices the codes."""
    if column.num_chunks > 1:
        column = column.unify_dictionaries()
    chunks = column.chunks or [pa.array([], column.type)]
    indices = [chunk.indices.to_numpy(zero_copy_only=False) for chunk in chunks]
    return StringTable.from_dictionary(*_spans(pa, chunks[0].dictionary),
                                       indices[0] if len(indices) == 1 else np.concatenate(indices))


def _large(pa: Any, kind: Any) -> Any:
    """The type with int64 offsets that holds strings (or bytes, unchecked) of type ``kind``."""
    binary = pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or (
        getattr(pa.types, "is_binary_view", bool)(kind))
    return pa.large_binary() if binary else pa.large_string()


def _one_chunk(pa: Any, column: Any) -> Any:
    """A chunked column of strings as one array (chunks combined with int64 offsets)."""
    if column.num_chunks == 1:
        return column.chunk(0)
    return column.cast(_large(pa, column.type)).combine_chunks()


def _spans(pa: Any, array: Any) -> tuple[np.ndarray, np.ndarray]:
    """An Arrow array of strings (or bytes) as its data bytes and its own offsets into them."""
    if not (pa.types.is_string(array.type) or pa.types.is_binary(array.type)
            or pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)):
        array = array.cast(_large(pa, array.type))    # string views hold no offsets
    large = pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)
    _, offsets, data = array.buffers()
    n = len(array)
    offsets = np.frombuffer(offsets, dtype=np.int64 if large else np.int32)[array.offset:array.offset + n + 1]
    return (np.empty(0, dtype=np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8)), offsets


def _check_utf8(table: StringTable, codes: np.ndarray, label: str) -> None:
    row = first_invalid_row(table, codes)
    if row is not None:
        raw = table.data[table.offsets[codes[row]]:table.offsets[codes[row] + 1]].tobytes()
        raise ValueError(f"{label}, row {row}, is {raw!r}, which is not valid UTF-8 (ids are decoded as "
                         "UTF-8)")


def _numpy(column: Any) -> np.ndarray:
    """A column of numbers as NumPy: a view of a single chunk where the types allow."""
    if column.num_chunks == 1:
        return column.chunk(0).to_numpy(zero_copy_only=False)
    return column.to_numpy()


def _values(pa: Any, column: Any, label: str) -> np.ndarray:
    kind = column.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)):
        raise TypeError(f"{label} must be a 1-D array of numbers, got {kind}")
    return _numpy(column)


def to_table(columns: TrecColumns | IdColumns, value_name: str, run_name: str | None) -> Any:
    """A pyarrow Table: query_id, doc_id and ``value_name`` (float64), without copying the rows.

    String ids are dictionary-encoded (int64 indices, the codes; a large_string dictionary,
    the id table's bytes), integer ids int64; ``run_name`` goes into the schema metadata.
    """
    pa = pyarrow("to_arrow()")
    if isinstance(columns, IdColumns):
        query, doc = pa.array(columns.query_ids), pa.array(columns.doc_ids)
    else:
        query = _dictionary(pa, columns.queries, columns.query_codes)
        doc = _dictionary(pa, columns.docs, columns.doc_codes)
    metadata = None if run_name is None else {RUN_NAME_KEY: run_name.encode("utf-8")}
    return pa.Table.from_arrays([query, doc, pa.array(columns.values)],
                                names=["query_id", "doc_id", value_name], metadata=metadata)


def _dictionary(pa: Any, table: StringTable, codes: np.ndarray) -> Any:
    strings = pa.Array.from_buffers(pa.large_string(), len(table),
                                    [None, pa.py_buffer(table.offsets), pa.py_buffer(table.data)])
    # The codes index the table by construction: no pass to check them.
    return pa.DictionaryArray.from_arrays(pa.array(codes), strings, safe=False)


# ---------------------------------------------------------------------------- Parquet

def is_parquet_name(path: object) -> bool:
    """Whether ``path`` is a file name ending in ``.parquet`` (any case)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False
    return os.fsdecode(os.fspath(path)).lower().endswith(".parquet")


def is_parquet(source: object) -> bool:
    """Whether a reader's ``source`` is Parquet: a name ending in ``.parquet``, or a regular file
    (or seekable binary stream) starting with Parquet's magic bytes ``PAR1``.

    Nothing else is read: pipes and standard input stay for the TREC reader, untouched.
    """
    if is_parquet_name(source):
        return True
    if isinstance(source, (str, bytes, os.PathLike)):
        if source in ("-", b"-"):
            return False
        try:
            if not stat.S_ISREG(os.stat(source).st_mode):
                return False
            with open(source, "rb") as f:
                return f.read(len(_PARQUET_MAGIC)) == _PARQUET_MAGIC
        except (OSError, ValueError):
            return False          # the TREC reader words the error
    return _stream_head(source) == _PARQUET_MAGIC


def _stream_head(stream: Any) -> bytes:
    """The first bytes of a seekable binary stream from where it stands, which it is left at."""
    try:
        if not stream.seekable() or isinstance(stream.read(0), str):
            return b""
        where = stream.tell()
        head = stream.read(len(_PARQUET_MAGIC))
        stream.seek(where)
    except (AttributeError, OSError, ValueError):
        return b""
    return head if isinstance(head, bytes) else b""


def read_parquet(source: Any, names: tuple[str, str, str], name: str) -> Any:
    """The columns ``names`` of a Parquet file (those it has) as a pyarrow Table.

    String columns are read dictionary-encoded, as Parquet mostly stores them, so that no
    string is decoded per row. ``name`` names the file in errors.
    """
    pa, pq = pyarrow(f"{name}: reading Parquet"), _parquet(f"{name}: reading Parquet")
    if isinstance(source, (str, bytes, os.PathLike)):
        source = os.fsdecode(os.fspath(source))
        with open(source, "rb") as f:
            head = f.read(len(_PARQUET_MAGIC))
    else:
        head = _stream_head(source)
    if head != _PARQUET_MAGIC:
        raise ValueError(f"{name}: the name ends in .parquet but the data is not Parquet (no PAR1 header)")
    try:
        schema = pq.read_schema(source)
        present = [column for column in names if column in schema.names]
        text = [column for column in present if _is_text(pa, schema.field(column).type)]
        return pq.read_table(source, columns=present, read_dictionary=text)
    except pa.ArrowInvalid as exc:
        raise ValueError(f"{name}: cannot read it as Parquet ({exc})") from None


def write_parquet(path: PathName, table: Any) -> None:
    """Write ``table`` to a Parquet file (its schema metadata, the run name, kept)."""
    _parquet("writing Parquet").write_table(table, os.fsdecode(os.fspath(path)))
