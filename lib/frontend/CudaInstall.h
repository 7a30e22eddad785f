//===- CudaInstall.h - facts read from a CUDA installation ------------------===//
#ifndef PROXYFENCE_FRONTEND_CUDAINSTALL_H
#define PROXYFENCE_FRONTEND_CUDAINSTALL_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace proxyfence {

/// "13.0" from CUDA_VERSION in <CudaPath>/include/cuda.h; nullopt if absent.
std::optional<std::string> cudaVersion(llvm::StringRef CudaPath);

} // namespace proxyfence

#endif
