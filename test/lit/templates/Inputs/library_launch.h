// A library's kernel entry, as cutlass/device_kernel.h writes it: the
// kernel template that runs an operator class of the user's.
#pragma once
template <class Op>
__global__ void device_kernel(const __grid_constant__ typename Op::Params params) {
  extern __shared__ char smem[];
  Op op;
  op(params, smem);
}
