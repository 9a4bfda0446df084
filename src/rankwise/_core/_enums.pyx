"""Python view of the shared enumerations declared in _enums.pxd (Metric, Variant, Ties, TrecMeasure, TieKey,
LineErrorKind)."""
