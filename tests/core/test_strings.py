"""StringTable from bytes already encoded (Arrow's layout): plain spans and dictionaries.

The reference is StringTable.from_strings of the same strings as Python objects.
"""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankwise._core import _intern
from rankwise._core.strings import StringTable

ids = st.lists(st.sampled_from(["", "a", "b", "ab", "é", "a\x00", "doc10", "doc1"]), max_size=40)


def encoded(strings, dtype=np.int64, lead=b""):
    """Arrow's layout: the UTF-8 bytes after ``lead``, offsets into them."""
    parts = [s.encode() for s in strings]
    offsets = np.cumsum([len(lead)] + [len(p) for p in parts]).astype(dtype)
    return np.frombuffer(lead + b"".join(parts), dtype=np.uint8), offsets


@given(ids, st.sampled_from([np.int32, np.int64]), st.binary(max_size=3))
def test_from_utf8_is_from_strings(strings, dtype, lead):
    table, codes = StringTable.from_utf8(*encoded(strings, dtype, lead))
    expected, expected_codes = StringTable.from_strings(strings)
    assert table.to_numpy().tolist() == expected.to_numpy().tolist()
    assert codes.tolist() == expected_codes.tolist() and codes.dtype == np.int64


@given(ids.filter(bool), st.lists(st.integers(0, 1000), max_size=60),
       st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]))
def test_from_dictionary_is_from_strings_of_the_rows(dictionary, picks, dtype):
    # Repeated and unused dictionary entries, any index width.
    indices = np.array([p % len(dictionary) for p in picks], dtype=dtype)
    table, codes = StringTable.from_dictionary(*encoded(dictionary), indices)
    expected, expected_codes = StringTable.from_strings([dictionary[i] for i in indices.tolist()])
    assert table.to_numpy().tolist() == expected.to_numpy().tolist()
    assert codes.tolist() == expected_codes.tolist() and codes.dtype == np.int64
    # A table of its own: offsets from 0 to the end of its data.
    StringTable(table.data, table.offsets)


def test_bad_spans_and_indices_are_refused():
    data, offsets = encoded(["ab", "c"])
    for bad in ([0, 3, 2], [-1, 2, 3], [0, 2, 4]):
        with pytest.raises(ValueError, match="offsets must be non-decreasing, within"):
            StringTable.from_utf8(data, np.array(bad))
    with pytest.raises(TypeError, match="uint8"):
        StringTable.from_utf8(offsets, offsets)
    for index in (2, -1):
        with pytest.raises(IndexError, match=f"row 1: dictionary index {index} outside a dictionary of 2"):
            StringTable.from_dictionary(data, offsets, np.array([0, index, 5]))
    with pytest.raises(IndexError, match="outside a dictionary of 2"):
        StringTable.from_dictionary(data, offsets, np.array([2**64 - 1], dtype=np.uint64))
    with pytest.raises(TypeError, match="indices must be 1-D integers"):
        StringTable.from_dictionary(data, offsets, np.array([0.0]))


def test_take_and_first_seen_kernels():
    data, offsets = encoded(["x", "", "yz"])
    picked, picked_offsets = _intern.take(data, offsets, np.array([2, 2, 1, 0]))
    assert picked.tobytes() == b"yzyzx" and picked_offsets.tolist() == [0, 2, 4, 4, 5]
    # Entries 0 and 3 are one string (code 1), entry 2 is never used.
    codes, used = _intern.first_seen(np.array([3, 0, 1, 3], dtype=np.int32), np.array([1, 0, 2, 1]), 3)
    assert codes.tolist() == [0, 0, 1, 0] and used.tolist() == [1, 0]
