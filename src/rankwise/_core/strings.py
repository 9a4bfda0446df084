"""Tables of unique strings held as UTF-8 bytes, shared by every domain that names things by string.

A :class:`StringTable` is what the interner (``_intern.pxd``) builds: the unique strings in
first-seen order, as one byte buffer and offsets, so that millions of ids cost no Python
object each. trec reads its ids into them; any domain may.
"""
from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Sequence
from functools import partial

import numpy as np

from . import _intern
from .parallel import run_alone, run_over_range

__all__ = ["StringTable"]


class StringTable:
    """Unique strings by code: code ``i`` is ``data[offsets[i]:offsets[i + 1]]`` (UTF-8).

    Parameters
    ----------
    data : numpy.ndarray
        uint8, the strings' UTF-8 bytes concatenated.
    offsets : numpy.ndarray
        int64 of length ``n + 1``, non-decreasing, from 0 to ``len(data)``.

    Examples
    --------
    >>> table, codes = StringTable.from_strings(["d2", "d10", "d2", "é"])
    >>> len(table), table[1], codes
    (3, 'd10', array([0, 1, 0, 2]))
    >>> table.byte_order()            # b"d10" < b"d2" < b"\\xc3\\xa9"
    array([1, 0, 2])
    >>> table.lookup(StringTable.from_strings(["é", "x"])[0])
    array([ 2, -1])
    """

    __slots__ = ("data", "offsets")

    def __init__(self, data: np.ndarray, offsets: np.ndarray) -> None:
        data, offsets = _spans(data, offsets, whole=True)
        self.data = data
        self.offsets = offsets

    @classmethod
    def _trusted(cls, data: np.ndarray, offsets: np.ndarray) -> StringTable:
        table = cls.__new__(cls)
        table.data = data
        table.offsets = offsets
        return table

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    def __getitem__(self, i: int) -> str:
        n = len(self)
        i = operator.index(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"string code {i} out of range for a table of {n}")
        return self.data[self.offsets[i]:self.offsets[i + 1]].tobytes().decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_numpy())

    def __repr__(self) -> str:
        head = ", ".join(repr(self[i]) for i in range(min(len(self), 3)))
        return f"StringTable({len(self)} strings: {head}{', ...' if len(self) > 3 else ''})"

    def to_numpy(self) -> np.ndarray:
        """The strings as an object array of ``str``, in code order."""
        raw = self.data.tobytes()
        bounds = self.offsets.tolist()
        out = np.empty(len(self), dtype=object)
        out[:] = [raw[a:b].decode("utf-8") for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        return out

    @classmethod
    def from_strings(cls, strings: Iterable[object]) -> tuple[StringTable, np.ndarray]:
        """Intern ``strings``: (table of the unique ones in first-seen order, int64 codes).

        Items that are not ``str`` are converted with ``str()``. Equality is exact
        (by UTF-8 bytes: no normalisation, no case folding).
        """
        items = [s if type(s) is str else str(s) for s in strings]
        offsets = np.zeros(len(items) + 1, dtype=np.int64)
        # One join and one encode are several times faster than encoding each string;
        # the newlines between them mark the boundaries unless a string holds one.
        joined = np.frombuffer("\n".join(items).encode("utf-8"), dtype=np.uint8)
        breaks = np.flatnonzero(joined == ord("\n"))
        if items and breaks.shape[0] == len(items) - 1:
            data = np.delete(joined, breaks)
            offsets[1:-1] = breaks - np.arange(breaks.shape[0])
            offsets[-1] = data.shape[0]
        else:
            encoded = [s.encode("utf-8") for s in items]
            np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
            data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return cls._interned(data, offsets)

    @classmethod
    def _interned(cls, data: np.ndarray, offsets: np.ndarray) -> tuple[StringTable, np.ndarray]:
        codes, table_data, table_offsets = run_alone(partial(_intern.intern, data, offsets),
                                                     offsets.shape[0] - 1)
        return cls._trusted(table_data, table_offsets), codes

    @classmethod
    def from_utf8(cls, data: np.ndarray, offsets: np.ndarray) -> tuple[StringTable, np.ndarray]:
        """Intern strings already encoded: string ``i`` is ``data[offsets[i]:offsets[i + 1]]``.

        As Arrow holds a string column: ``offsets`` (int32 or int64, ``n + 1`` of them,
        non-decreasing) need not start at 0 nor end at ``len(data)``. Returns what
        :meth:`from_strings` returns, without a Python object per string. The bytes are
        taken as they are (UTF-8 is not checked).

        Examples
        --------
        >>> data = np.frombuffer(b"xd2d10d2", dtype=np.uint8)
        >>> table, codes = StringTable.from_utf8(data, np.array([1, 3, 6, 8], dtype=np.int32))
        >>> table.to_numpy(), codes
        (array(['d2', 'd10'], dtype=object), array([0, 1, 0]))
        """
        data, offsets = _spans(data, offsets)
        return cls._interned(data, offsets)

    @classmethod
    def from_dictionary(cls, data: np.ndarray, offsets: np.ndarray,
                        indices: np.ndarray) -> tuple[StringTable, np.ndarray]:
        """Intern dictionary-encoded strings: row ``i`` is string ``indices[i]`` of (data, offsets).

        The dictionary's strings (as :meth:`from_utf8` takes them) are interned once, not
        row by row. The table holds only the strings some row uses, in the order the rows
        first use them, as :meth:`from_strings` of the decoded rows would give it; a
        dictionary holding a string twice gives both the same code. ``indices`` are
        integers; one outside the dictionary is an IndexError.

        Examples
        --------
        >>> data = np.frombuffer(b"q1q2q1q9", dtype=np.uint8)      # "q9" is never used
        >>> table, codes = StringTable.from_dictionary(data, np.arange(0, 9, 2), np.array([1, 2, 0, 1]))
        >>> table.to_numpy(), codes
        (array(['q2', 'q1'], dtype=object), array([0, 1, 1, 0]))
        """
        entries, entry_codes = cls.from_utf8(data, offsets)
        indices = np.ascontiguousarray(indices)
        if indices.dtype.kind not in "iu" or indices.ndim != 1:
            raise TypeError(f"indices must be 1-D integers, got {indices.dtype} of shape {indices.shape}")
        if indices.dtype.itemsize == 8 and indices.dtype.kind == "u":
            if indices.size and indices.max() > np.iinfo(np.int64).max:
                raise IndexError(f"dictionary index {indices.max()} outside a dictionary of "
                                 f"{len(entry_codes)}")
            indices = indices.view(np.int64)
        codes, used = run_alone(partial(_intern.first_seen, indices, entry_codes, len(entries)),
                                indices.shape[0])
        return cls._trusted(*_intern.take(entries.data, entries.offsets, used)), codes

    @classmethod
    def union(cls, tables: Sequence[StringTable]) -> tuple[StringTable, list[np.ndarray]]:
        """One table of every string of ``tables`` (in first-seen order) and, for each table,
        the code in it of each of that table's codes: their bytes interned together.

        Examples
        --------
        >>> a, b = StringTable.from_strings(["d1", "d2"])[0], StringTable.from_strings(["d3", "d1"])[0]
        >>> union, codes = StringTable.union([a, b])
        >>> union.to_numpy(), codes
        (array(['d1', 'd2', 'd3'], dtype=object), [array([0, 1]), array([2, 0])])
        """
        data = np.concatenate([t.data for t in tables])
        starts = np.cumsum([0] + [t.data.shape[0] for t in tables])
        offsets = np.concatenate([np.zeros(1, dtype=np.int64)] +
                                 [t.offsets[1:] + start for t, start in zip(tables, starts, strict=False)])
        union, codes = cls.from_utf8(data, offsets.astype(np.int64))
        bounds = np.cumsum([0] + [len(t) for t in tables])
        return union, [codes[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    def lookup(self, other: StringTable, n_threads: int = 1) -> np.ndarray:
        """The int64 code in this table of each string of ``other``; -1 where absent.

        The table is hashed once, and ``n_threads`` threads (an effective count, as
        ``parallel.effective_n_threads`` gives) look ``other``'s strings up in it.
        """
        index = run_alone(partial(_intern.index, self.data, self.offsets), len(self))
        out = np.empty(len(other), dtype=np.int64)
        run_over_range(partial(index.find, other.data, other.offsets, out), len(other), n_threads, len(other))
        return out

    def starts_with(self, prefix: StringTable) -> bool:
        """Whether this table's first ``len(prefix)`` strings are ``prefix``'s, code for code.

        One comparison of ``prefix``'s bytes and offsets (no hashing): a table interned
        with ``prefix``'s strings first starts with it.

        Examples
        --------
        >>> table = StringTable.from_strings(["d1", "d2", "d3"])[0]
        >>> table.starts_with(StringTable.from_strings(["d1", "d2"])[0])
        True
        >>> table.starts_with(StringTable.from_strings(["d2", "d1"])[0])
        False
        """
        n, size = len(prefix), prefix.data.shape[0]
        return (n <= len(self) and size <= self.data.shape[0]
                and np.array_equal(self.offsets[:n + 1], prefix.offsets)
                and np.array_equal(self.data[:size], prefix.data))

    def byte_order(self) -> np.ndarray:
        """int64 rank of each code with the strings sorted by their UTF-8 bytes, ascending.

        Bytes compare unsigned, as memcmp and trec_eval's strcmp do, and a proper prefix
        sorts first. For ``str`` this equals code-point order.
        """
        return run_alone(partial(_intern.byte_ranks, self.data, self.offsets), 8 * len(self))

    def descending_order(self) -> np.ndarray:
        """int64 rank of each code with the strings sorted by their bytes, descending: trec_eval's
        order among tied scores (the kernels rank a lower key first).

        Examples
        --------
        >>> StringTable.from_strings(["d10", "d2", "d1"])[0].descending_order()
        array([1, 0, 2])
        """
        return (len(self) - 1 - self.byte_order()).astype(np.int64)


def _spans(data: np.ndarray, offsets: np.ndarray, whole: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``data`` and ``offsets`` as the kernels read them, checked to stay within ``data``
    (``whole``: to run from 0 to its end, as a table's do)."""
    data = np.ascontiguousarray(data)
    if data.dtype != np.uint8 or data.ndim != 1:
        raise TypeError(f"data must be a 1-D uint8 array, got {data.dtype} of shape {data.shape}")
    offsets = np.ascontiguousarray(offsets)
    if offsets.dtype.kind not in "iu" or offsets.ndim != 1 or offsets.shape[0] < 1:
        raise ValueError(f"offsets must be 1-D integers of length n + 1, got {offsets.dtype} "
                         f"of shape {offsets.shape}")
    offsets = offsets.astype(np.int64, copy=False)
    if whole and (offsets[0] != 0 or offsets[-1] != data.shape[0]):
        raise ValueError("offsets must be non-decreasing from 0 to len(data)")
    if offsets[0] < 0 or offsets[-1] > data.shape[0] or np.any(offsets[1:] < offsets[:-1]):
        raise ValueError("offsets must be non-decreasing, within 0 and len(data)")
    return data, offsets
