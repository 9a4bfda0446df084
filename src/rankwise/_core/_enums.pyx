"""Python view of the shared enumerations declared in _enums.pxd (Metric, Ties, TrecMeasure, TieKey,
LineErrorKind)."""
