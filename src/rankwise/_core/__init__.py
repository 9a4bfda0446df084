"""What every domain shares: input validation into a CSR Batch, the metric-name grammar, the
Results type, thread-count resolution and the parallel runner, the shared enumerations, and
the kernels every domain builds on (the sort, the stop flag, gain scaling)."""
