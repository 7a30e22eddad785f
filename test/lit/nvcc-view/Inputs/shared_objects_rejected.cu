// __shared__ objects nvcc rejects as well: an initializer, namespace scope.
struct Staging {
  float tile[256];
  unsigned filled = 0;
};
__shared__ Staging at_namespace_scope;

__global__ void initialised(float *out) {
  __shared__ Staging braced{};
  __shared__ Staging copied = Staging();
  out[threadIdx.x] = braced.tile[threadIdx.x] + copied.tile[threadIdx.x];
}

template <int N> __global__ void initialised_in_template(float *out) {
  __shared__ Staging braced{};
  out[threadIdx.x] = braced.tile[threadIdx.x] * N;
}
template __global__ void initialised_in_template<3>(float *);
