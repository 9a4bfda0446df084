import numpy as np

def fuse_range(
    layout: tuple[np.ndarray, np.ndarray, np.ndarray],
    docs: np.ndarray,
    scores: np.ndarray,
    options: tuple[int, int, float, int, np.ndarray, np.ndarray],
    q_start: int,
    q_stop: int,
    out: tuple[np.ndarray, np.ndarray, np.ndarray],
    stop: np.ndarray | None = ...,
) -> None: ...
