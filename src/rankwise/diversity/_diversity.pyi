import numpy as np

def diversity_range(
    topics: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    run: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    specs: tuple[np.ndarray, np.ndarray, int],
    alpha: float,
    beta: float,
    q_start: int,
    q_stop: int,
    out: np.ndarray,
    stop: np.ndarray | None = ...,
) -> None: ...
