import numpy as np

def evaluate_range(
    items: np.ndarray,  # int32 or int64
    indptr: np.ndarray,
    relevant: tuple[np.ndarray, np.ndarray, np.ndarray | None],  # indptr, indices, grades
    spec: tuple[np.ndarray, ...],  # kinds, cutoffs, flags, params, variants
    options: dict[str, float],  # n_items, level, max_grade, max_relevant
    q_start: int,
    q_stop: int,
    output: tuple[np.ndarray, np.ndarray, np.ndarray],  # values, n_relevant, lengths
    error: np.ndarray,
    stop: np.ndarray | None = ...,
) -> int:
    """0, or 1 when a list of the range is bad (``error`` then says where)."""
    ...
