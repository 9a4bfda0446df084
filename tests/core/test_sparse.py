"""as_csr: every scipy.sparse format and dense input into one canonical CSR, checked.

The reference is the dense matrix: row i's stored columns are its non-zero cells.
"""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankwise._core.sparse import Csr, as_csr, is_sparse

sp = pytest.importorskip("scipy.sparse")

FORMATS = ["coo", "csr", "csc", "bsr", "dia", "lil", "dok"]


def dense_of(csr: Csr) -> np.ndarray:
    out = np.zeros(csr.shape)
    rows = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
    out[rows, csr.indices] = 1.0 if csr.data is None else csr.data
    return out


def check_canonical(csr: Csr) -> None:
    assert csr.indptr.dtype == np.int64 and csr.indices.dtype == np.int64
    assert csr.indptr[0] == 0 and csr.indptr[-1] == csr.indices.size == np.sum(np.diff(csr.indptr))
    for i in range(csr.shape[0]):
        row = csr.indices[csr.indptr[i]:csr.indptr[i + 1]]
        assert np.all(np.diff(row) > 0)
    if csr.data is not None:
        assert csr.data.dtype == np.float64 and np.all(csr.data > 0)


matrices = st.integers(0, 6).flatmap(lambda r: st.integers(0, 6).flatmap(
    lambda c: st.lists(st.sampled_from([0, 0, 0, 1, 2, 0.5]), min_size=r * c, max_size=r * c).map(
        lambda v: np.array(v, dtype=np.float64).reshape(r, c))))


@given(matrices, st.sampled_from(FORMATS), st.booleans())
def test_every_format_and_class_gives_the_dense_matrix(dense, fmt, array_class):
    make = sp.coo_array if array_class else sp.coo_matrix
    matrix = make(dense).asformat(fmt)
    csr = as_csr(matrix, "y_true", shape=dense.shape)
    check_canonical(csr)
    assert csr.shape == dense.shape
    np.testing.assert_array_equal(dense_of(csr), dense)
    mask = as_csr(matrix, "exclude", mask=True)
    check_canonical(mask)
    assert mask.data is None
    np.testing.assert_array_equal(dense_of(mask), dense != 0)
    np.testing.assert_array_equal(dense_of(as_csr(dense, "y_true")), dense)
    np.testing.assert_array_equal(dense_of(as_csr(dense != 0, "exclude", mask=True)), dense != 0)


@pytest.mark.parametrize("make", [sp.csr_array, sp.csr_matrix])
def test_unsorted_indices_and_explicit_zeros(make):
    # Row 0 stores columns 3, 0 (unsorted) and an explicit zero at column 1.
    matrix = make((np.array([2.0, 1.0, 0.0]), np.array([3, 0, 1]), np.array([0, 3, 3])), shape=(2, 4))
    before = (matrix.data.copy(), matrix.indices.copy(), matrix.indptr.copy())
    csr = as_csr(matrix, "y_true")
    assert csr.indptr.tolist() == [0, 2, 2]
    assert csr.indices.tolist() == [0, 3] and csr.data.tolist() == [1.0, 2.0]
    mask = as_csr(matrix, "exclude", mask=True)
    assert mask.indices.tolist() == [0, 3]
    for old, new in zip(before, (matrix.data, matrix.indices, matrix.indptr), strict=True):
        np.testing.assert_array_equal(old, new)


def test_duplicates_are_an_error_for_labels_and_merge_in_a_mask():
    coo = sp.coo_array((np.array([1.0, 1.0, 3.0]), (np.array([1, 0, 1]), np.array([2, 0, 2]))), shape=(2, 3))
    with pytest.raises(ValueError, match=r"y_true stores \(row 1, column 2\) more than once"):
        as_csr(coo, "y_true")
    csr = sp.csr_array((np.array([1.0, 1.0]), np.array([2, 2]), np.array([0, 2])), shape=(1, 3))
    with pytest.raises(ValueError, match=r"labels stores \(row 0, column 2\)"):
        as_csr(csr, "labels")
    mask = as_csr(coo, "exclude", mask=True)
    assert mask.indptr.tolist() == [0, 1, 2] and mask.indices.tolist() == [0, 2]
    # A stored zero beside a stored one at the same cell: the cell is excluded.
    zero_first = sp.coo_array((np.array([0, 1]), (np.array([0, 0]), np.array([1, 1]))), shape=(1, 2))
    assert as_csr(zero_first, "exclude", mask=True).indices.tolist() == [1]


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf, -np.inf])
def test_labels_must_be_finite_and_non_negative(bad):
    dense = np.array([[0.0, 1.0], [2.0, bad]])
    for matrix in (dense, sp.csr_array(dense), sp.coo_matrix(dense)):
        with pytest.raises(ValueError, match=r"y_true must hold finite labels >= 0; found .* row 1, column 1"):
            as_csr(matrix, "y_true")
    # A mask reads any non-zero value as excluded.
    assert as_csr(sp.csr_array(dense), "exclude", mask=True).indices.tolist() == [1, 0, 1]
    negative = np.array([[0, -3]])
    with pytest.raises(ValueError, match="found -3 at row 0, column 1"):
        as_csr(sp.csr_array(negative), "y_true")


def test_integer_and_bool_labels_become_float64():
    csr = as_csr(sp.csr_array(np.array([[0, 3], [1, 0]], dtype=np.int8)), "y_true")
    assert csr.data.dtype == np.float64 and csr.data.tolist() == [3.0, 1.0]
    csr = as_csr(np.array([[True, False]]), "y_true")
    assert csr.data.tolist() == [1.0] and csr.indices.tolist() == [0]


def test_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"exclude must have shape \(2, 3\), got \(2, 4\)"):
        as_csr(sp.csr_array((2, 4)), "exclude", shape=(2, 3), mask=True)
    with pytest.raises(ValueError, match=r"y_true must have shape \(3, 3\), got \(2, 3\)"):
        as_csr(np.zeros((2, 3)), "y_true", shape=(3, 3))
    with pytest.raises(ValueError, match="exclude must be 2-D"):
        as_csr(np.zeros(3, dtype=bool), "exclude", mask=True)


def test_bad_types_are_refused():
    with pytest.raises(TypeError, match="y_true must hold numbers"):
        as_csr(np.array([["a", "b"]]), "y_true")
    with pytest.raises(TypeError, match="y_true must hold numbers"):
        as_csr(np.array([[1, None]], dtype=object), "y_true")
    with pytest.raises(TypeError, match="exclude must be a boolean mask"):
        as_csr(np.array([[1, 0]]), "exclude", mask=True)
    # scipy.sparse holds no objects; complex numbers are its only non-real values.
    with pytest.raises(TypeError, match="exclude must hold numbers"):
        as_csr(sp.csr_array(np.array([[1j, 0]])), "exclude", mask=True)
    with pytest.raises(TypeError, match="y_true must hold numbers"):
        as_csr(sp.csr_array(np.array([[1j, 0]])), "y_true")


def test_read_only_input_is_unchanged():
    dense = np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]])
    dense.flags.writeable = False
    coo = sp.coo_array(dense)
    for arr in (coo.data, coo.row, coo.col):
        arr.flags.writeable = False
    # Shuffle the entries so that as_csr must sort them.
    coo = sp.coo_array((coo.data[::-1], (coo.row[::-1], coo.col[::-1])), shape=coo.shape)
    csr = as_csr(coo, "y_true")
    assert csr.data.tolist() == [2.0, 1.0, 3.0] and csr.indices.tolist() == [1, 0, 2]
    assert coo.data.tolist() == [3.0, 1.0, 2.0]
    assert as_csr(dense, "y_true").data.tolist() == [2.0, 1.0, 3.0]
    assert as_csr(dense > 0, "exclude", mask=True).indices.tolist() == [1, 0, 2]


def test_is_sparse():
    assert is_sparse(sp.csr_array((1, 1))) and is_sparse(sp.lil_matrix((1, 1)))
    assert not is_sparse(np.zeros((1, 1))) and not is_sparse([[1]]) and not is_sparse(None)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_canonical_csr_taken_as_is_gives_the_same_and_stays_unchanged(index_dtype):
    # A canonical CSR skips the coordinate path: same result, the caller's arrays untouched.
    dense = np.array([[0, 2, 0, 1], [0, 0, 0, 0], [3, 0, 0.5, 0]])
    matrix = sp.csr_matrix(dense)
    matrix.indices, matrix.indptr = matrix.indices.astype(index_dtype), matrix.indptr.astype(index_dtype)
    assert matrix.has_canonical_format
    before = matrix.indices.copy()
    for mask in (False, True):
        csr = as_csr(matrix, "y_true", shape=(3, 4), mask=mask)
        check_canonical(csr)
        np.testing.assert_array_equal(dense_of(csr), dense if not mask else dense != 0)
        with pytest.raises(ValueError):
            csr.indices[0] = 1
    np.testing.assert_array_equal(matrix.indices, before)
    for bad in (np.nan, -1.0, np.inf):
        matrix.data[0] = bad
        with pytest.raises(ValueError, match="y_true"):
            as_csr(matrix, "y_true")
        assert as_csr(matrix, "exclude", mask=True).indices.tolist() == [1, 3, 0, 2]


def test_canonical_csr_taken_as_it_is():
    """A canonical CSR of positive finite labels skips the general path: same result, same errors."""
    dense = np.array([[0, 2, 0, 5], [1, 0, 0, 0], [0, 0, 0, 0]], dtype=np.int32)
    fast = as_csr(sp.csr_array(dense), "relevant")
    general = as_csr(sp.coo_array(dense), "relevant")
    for a, b in [(fast.indptr, general.indptr), (fast.indices, general.indices), (fast.data, general.data)]:
        assert a.dtype == b.dtype and a.tolist() == b.tolist()
    assert fast.shape == general.shape == (3, 4)
    with pytest.raises(ValueError, match="must have shape"):
        as_csr(sp.csr_array(dense), "relevant", shape=(3, 5))
    for bad, message in [(np.nan, "finite labels"), (-1.0, "finite labels")]:
        matrix = sp.csr_array(dense.astype(float))
        matrix.data[0] = bad
        assert matrix.has_canonical_format
        with pytest.raises(ValueError, match=message):
            as_csr(matrix, "relevant")
    explicit_zero = sp.csr_array((np.array([0.0, 3.0]), np.array([0, 1]), np.array([0, 2])), shape=(1, 2))
    assert as_csr(explicit_zero, "relevant").indices.tolist() == [1]
