// A container library in its own header: its internals are not the names a
// user knows the buffer by.
#pragma once
#include <cstdint>

template <class T, int N> struct Storage {
  T storage_[N];
  __device__ T *begin() { return storage_; }
};

// A tuple whose get<I> forwards through static_cast, as CuTe's does.
template <class A, class B> struct Pair {
  A first_;
  B second_;
};
template <class S> __device__ auto &&get_first(S &&s) {
  return static_cast<S &&>(s).first_;
}
template <class S> __device__ auto &&get_second(S &&s) {
  return static_cast<S &&>(s).second_;
}
template <class A, class B> __device__ Pair<A, B> make_pair(A a, B b) {
  return {a, b};
}

// A function object that forwards its arguments to an operation's copy().
template <class Op> struct CallCopy {
  template <class... Args> __device__ void operator()(Args &&...args) const {
    Op::copy(static_cast<Args &&>(args)...);
  }
};
