// alignas that nvcc rejects as well: not a power of two, and on a type.
#include <cuda.h>
alignas(3) CUtensorMap odd_map;
static alignas(64) CUtensorMap misplaced_map;
