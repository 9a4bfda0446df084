# Element types the kernels accept without a copy. Booleans arrive viewed as uint8.
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t

ctypedef fused score_t:
    float
    double

ctypedef fused label_t:
    uint8_t
    int8_t
    int16_t
    int32_t
    int64_t
    float
    double
