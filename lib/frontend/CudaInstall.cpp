//===- CudaInstall.cpp - facts read from a CUDA installation ----------------===//
#include "frontend/CudaInstall.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using llvm::StringRef;

namespace proxyfence {

std::optional<std::string> cudaVersion(StringRef CudaPath) {
  llvm::SmallString<256> P(CudaPath);
  llvm::sys::path::append(P, "include", "cuda.h");
  auto Buf = llvm::MemoryBuffer::getFile(P);
  if (!Buf)
    return std::nullopt;
  StringRef Text = (*Buf)->getBuffer();
  size_t At = Text.find("#define CUDA_VERSION");
  if (At == StringRef::npos)
    return std::nullopt;
  unsigned V = 0;
  StringRef Num = Text.substr(At + 20).ltrim();
  Num = Num.take_while([](char C) { return C >= '0' && C <= '9'; });
  if (Num.getAsInteger(10, V) || V < 1000)
    return std::nullopt;
  return std::to_string(V / 1000) + "." + std::to_string(V % 1000 / 10);
}

} // namespace proxyfence
