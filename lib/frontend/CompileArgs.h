//===- CompileArgs.h - compile commands for the CUDA device side -----------===//
#ifndef PROXYFENCE_COMPILEARGS_H
#define PROXYFENCE_COMPILEARGS_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace proxyfence {

struct DeviceOptions {
  std::string Arch;     // empty: the command's own arch, else sm_90a
  std::string CudaPath; // contains include/cuda.h
  /// Add nvcc's macros and the in-memory prelude (NvccView.h); the file
  /// system the command runs on must hold nvccPreludePath().
  bool NvccView = false;
};

/// True for the GPU architectures clang can target (sm_90a, sm_100a, ...)
/// and their family targets (sm_100f).
bool isKnownArch(llvm::StringRef Arch);

/// Turns a compile command (argv[0] first, as in compile_commands.json,
/// written for nvcc or clang) into a clang command that parses only the
/// device side of \p File for one architecture: nvcc-only flags are dropped
/// or translated, output flags removed, and the CUDA/CCCL paths added.
std::vector<std::string> deviceCommand(const std::vector<std::string> &Cmd,
                                       llvm::StringRef File,
                                       const DeviceOptions &Opts);

/// Turns a compile command (as for deviceCommand) into an nvcc command that
/// compiles \p File to PTX with line info (`-ptx -lineinfo`) into \p Output
/// for one architecture (Opts.Arch, else the command's, else sm_90a): the
/// -I/-isystem/-D/-U/-include/-std flags deviceCommand keeps, with relative
/// paths made absolute, plus the nvcc flags that change what compiles
/// (--expt-relaxed-constexpr, --extended-lambda, relocatable device code).
std::vector<std::string> nvccPtxCommand(const std::vector<std::string> &Cmd,
                                        llvm::StringRef File,
                                        const DeviceOptions &Opts,
                                        llvm::StringRef Output);

/// The same flags, building \p File into the executable \p Output (a file
/// that carries its own harness: a main() that launches the kernels).
std::vector<std::string>
nvccExecutableCommand(const std::vector<std::string> &Cmd, llvm::StringRef File,
                      const DeviceOptions &Opts, llvm::StringRef Output);

/// The architecture \p Cmd is analysed and built for: \p Arch (--arch or
/// the configuration's), else the command's own, else sm_90a.
std::string targetArch(const std::vector<std::string> &Cmd,
                       llvm::StringRef Arch);

/// Every architecture a command targets (-arch=sm_90a, -gencode ...,
/// --cuda-gpu-arch=...), normalised to sm_XX[a|f], in order, each once.
std::vector<std::string> archsOfCommand(const std::vector<std::string> &Cmd);

/// The architecture a command is analysed for: its first target from
/// sm_90 on (one with the async proxy), else its first; empty when none.
std::string archOfCommand(const std::vector<std::string> &Cmd);

/// The command's other targets with the async proxy whose `__CUDA_ARCH__`
/// differs from \p Chosen's (sm_100a beside sm_90a; not sm_90 beside
/// sm_90a): each compiles device code the chosen one may not.
std::vector<std::string> otherAsyncProxyArchs(const std::vector<std::string> &Cmd,
                                              llvm::StringRef Chosen);

} // namespace proxyfence

#endif
