import numpy as np

def agree_range(
    lists: tuple[np.ndarray, ...],
    measures: tuple[np.ndarray, np.ndarray, np.ndarray],
    q_start: int,
    q_stop: int,
    out: np.ndarray,
    stop: np.ndarray | None = ...,
) -> None: ...
