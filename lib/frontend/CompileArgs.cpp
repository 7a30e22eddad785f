//===- CompileArgs.cpp - compile commands for the CUDA device side ---------===//
#include "frontend/CompileArgs.h"
#include "frontend/CudaInstall.h"
#include "proxyfence/NvccView.h"
#include "clang/Basic/OffloadArch.h"
#include "clang/Options/OptionUtils.h"
#include "clang/Basic/Version.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using llvm::StringRef;

namespace proxyfence {

/// The architecture clang is given: a family target (sm_100f) is parsed as
/// its base GPU, and the family macro added by the nvcc view.
static StringRef clangArch(StringRef Arch) {
  return Arch.ends_with("f") ? Arch.drop_back() : Arch;
}

bool isKnownArch(StringRef Arch) {
  return Arch.starts_with("sm_") &&
         clang::StringToOffloadArch(clangArch(Arch)) !=
             clang::OffloadArch::UNKNOWN;
}

/// "compute_90a" / "sm_90a" / "90a" -> "sm_90a".
static std::string normaliseArch(StringRef A) {
  A = A.trim();
  if (A.consume_front("compute_") || A.consume_front("sm_") ||
      A.consume_front("lto_"))
    return ("sm_" + A).str();
  if (!A.empty() && A[0] >= '0' && A[0] <= '9')
    return ("sm_" + A).str();
  return "";
}

std::vector<std::string> archsOfCommand(const std::vector<std::string> &Cmd) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < Cmd.size(); ++I) {
    StringRef A = Cmd[I];
    StringRef Value;
    if (A.consume_front("--cuda-gpu-arch=") || A.consume_front("--offload-arch="))
      Value = A;
    else if (A.consume_front("-arch=") || A.consume_front("--gpu-architecture="))
      Value = A;
    else if ((A == "-arch" || A == "--gpu-architecture") && I + 1 < Cmd.size())
      Value = Cmd[I + 1];
    else if (A == "-gencode" && I + 1 < Cmd.size())
      Value = Cmd[I + 1];
    else if (A.consume_front("-gencode=") || A.consume_front("--generate-code="))
      Value = A;
    if (Value.empty())
      continue;
    // "arch=compute_90a,code=sm_90a" or "sm_90a".
    size_t Eq = Value.find("arch=");
    if (Eq != StringRef::npos)
      Value = Value.substr(Eq + 5).split(',').first;
    std::string N = normaliseArch(Value);
    if (!N.empty() && N != "sm_native" && N != "sm_all" &&
        !llvm::is_contained(Out, N))
      Out.push_back(N);
  }
  return Out;
}

/// The number `__CUDA_ARCH__` has for \p Arch: sm_90a -> 90 (x10 in the
/// macro); 0 when it is not sm_XX[a|f].
static unsigned archNumber(StringRef Arch) {
  unsigned N = 0;
  Arch.consume_front("sm_");
  Arch = Arch.take_while([](char C) { return C >= '0' && C <= '9'; });
  return Arch.getAsInteger(10, N) ? 0 : N;
}

/// Whether \p Arch (sm_XX[a|f]) has the async proxy: sm_90 and later.
static bool hasAsyncProxy(StringRef Arch) { return archNumber(Arch) >= 90; }

std::string archOfCommand(const std::vector<std::string> &Cmd) {
  // A multi-architecture build (`-gencode sm_80 -gencode sm_90a`) is read
  // for the first target with the async proxy: what this tool checks.
  // Of `sm_90` and `sm_90a`, the arch-specific one: it has wgmma and setmaxnreg.
  std::vector<std::string> All = archsOfCommand(Cmd);
  for (const std::string &A : All) {
    if (!hasAsyncProxy(A))
      continue;
    for (const std::string &B : All)
      if (B.back() == 'a' && archNumber(B) == archNumber(A))
        return B;
    return A;
  }
  return All.empty() ? "" : All.front();
}

std::vector<std::string> otherAsyncProxyArchs(const std::vector<std::string> &Cmd,
                                              StringRef Chosen) {
  std::vector<std::string> Out;
  std::vector<unsigned> Seen{archNumber(Chosen)};
  for (const std::string &A : archsOfCommand(Cmd))
    if (hasAsyncProxy(A) && isKnownArch(A) &&
        !llvm::is_contained(Seen, archNumber(A))) {
      Seen.push_back(archNumber(A));
      Out.push_back(A);
    }
  return Out;
}

std::string targetArch(const std::vector<std::string> &Cmd, StringRef Arch) {
  std::string A = Arch.empty() ? archOfCommand(Cmd) : Arch.str();
  return A.empty() || !isKnownArch(A) ? "sm_90a" : A;
}

/// Clang's own headers: shipped beside a relocated binary (a static build
/// copied to a machine without LLVM 22), <bin>/../lib/clang/<major>, else
/// those of the installed clang. Clang would look for them relative to
/// "clang++", not to this program.
static std::string clangResourceDir() {
  static const std::string Dir = [] {
    llvm::SmallString<256> P(llvm::sys::path::parent_path(
        llvm::sys::path::parent_path(llvm::sys::fs::getMainExecutable(
            nullptr, reinterpret_cast<void *>(&clangResourceDir)))));
    llvm::sys::path::append(P, "lib", "clang", CLANG_VERSION_MAJOR_STRING);
    auto HasWrapper = [](llvm::StringRef Dir) {
      llvm::SmallString<256> Wrapper(Dir);
      llvm::sys::path::append(Wrapper, "include",
                              "__clang_cuda_runtime_wrapper.h");
      return llvm::sys::fs::exists(Wrapper);
    };
    if (HasWrapper(P))
      return std::string(P);
    // Else the headers of the clang this program was built with: left to
    // itself, the driver would look under "lib/clang" of the working
    // directory and miss cuda_wrappers/ (the device placement new of
    // <new>, which cuda::barrier's init uses; <cmath>, <complex>).
    std::string Installed = clang::GetResourcesPath(
        PF_LLVM_TOOLS_DIR "/clang");
    return HasWrapper(Installed) ? Installed : std::string();
  }();
  return Dir;
}

std::vector<std::string> deviceCommand(const std::vector<std::string> &Cmd,
                                       StringRef File,
                                       const DeviceOptions &Opts) {
  // nvcc flags that take a separate value and mean nothing to the front end.
  static const llvm::StringSet<> DropWithValue = {
      "-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode",
      "--generate-code", "-ccbin", "--compiler-bindir", "-Xptxas",
      "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xfatbin",
      "-Xarchive", "-maxrregcount", "--maxrregcount", "-t", "--threads",
      "--default-stream", "-default-stream", "-o", "--output-file",
      "-MF", "-MT", "-MQ", "--dependency-output", "-diag-suppress",
      "--diag-suppress", "-Werror", "--Werror", "-split-compile",
      "--split-compile", "-dlto", "-ftemplate-depth"};
  // nvcc flags without a value (or with `=value`) that clang lacks.
  static const llvm::StringSet<> Drop = {
      "--expt-relaxed-constexpr", "-expt-relaxed-constexpr",
      "--expt-extended-lambda", "-expt-extended-lambda", "--extended-lambda",
      "-extended-lambda", "-rdc", "--relocatable-device-code", "-dc",
      "--device-c", "-dw", "-lineinfo", "--generate-line-info", "-G",
      "--device-debug", "--use_fast_math", "-use_fast_math", "--keep",
      "-keep", "-res-usage", "--resource-usage", "-forward-unknown-to-host-compiler",
      "--forward-unknown-to-host-compiler", "-c", "--compile", "-E", "-M",
      "-MD", "-MMD", "-MP", "-cubin", "-ptx", "-fatbin", "--ptx", "--cubin",
      "-Wreorder", "--display-error-number", "--no-host-device-move-forward",
      "--source-in-ptx", "-src-in-ptx", "--restrict", "-restrict",
      "-fsyntax-only", "--cuda-device-only", "--cuda-host-only",
      "-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets",
      "-Wno-unknown-cuda-version", "--allow-unsupported-compiler",
      "-allow-unsupported-compiler", "--static-global-template-stub"};
  static const char *DropPrefixes[] = {
      "-arch=", "--gpu-architecture=", "-code=", "--gpu-code=", "-gencode=",
      "--generate-code=", "-rdc=", "--relocatable-device-code=",
      "-ccbin=", "--compiler-bindir=", "--ptxas-options=", "-Xptxas=",
      "--nvlink-options=", "-maxrregcount=", "--maxrregcount=", "-t=",
      "--threads=", "--default-stream=", "--diag-suppress=", "-diag-suppress=",
      "--diag_suppress=", "-Werror=", "--Werror=", "--cuda-gpu-arch=",
      "--offload-arch=", "--cuda-path=", "-o", "--output-file=",
      "--split-compile=", "-ferror-limit=", "-MF", "-MT", "-MQ",
      "--static-global-template-stub="};

  std::vector<std::string> Out;
  Out.push_back(Cmd.empty() ? "clang++" : "clang++");
  StringRef FileName = llvm::sys::path::filename(File);
  for (size_t I = Cmd.empty() ? 0 : 1; I < Cmd.size(); ++I) {
    StringRef A = Cmd[I];
    // The input itself; added back at the end.
    if (A == File || (!A.starts_with("-") && llvm::sys::path::filename(A) == FileName))
      continue;
    if (DropWithValue.contains(A)) {
      ++I;
      continue;
    }
    if (Drop.contains(A) || Drop.contains(A.split('=').first))
      continue;
    bool Dropped = false;
    for (const char *P : DropPrefixes)
      if (A.starts_with(P) && A != "-o") {
        Dropped = true;
        break;
      }
    if (Dropped)
      continue;
    // Host compiler options: keep the ones a C++ front end understands.
    if ((A == "-Xcompiler" || A == "--compiler-options") && I + 1 < Cmd.size()) {
      StringRef Rest = Cmd[++I];
      while (!Rest.empty()) {
        auto [Opt, Tail] = Rest.split(',');
        if (Opt.starts_with("-D") || Opt.starts_with("-I") ||
            Opt.starts_with("-std=") || Opt.starts_with("-U"))
          Out.push_back(Opt.str());
        Rest = Tail;
      }
      continue;
    }
    if (A.starts_with("-Xcompiler=") || A.starts_with("--compiler-options="))
      continue;
    if (A == "-x" && I + 1 < Cmd.size()) {
      ++I; // language: always CUDA below
      continue;
    }
    if (A == "-xcu" || A == "-xcuda")
      continue;
    if ((A == "--std" || A == "-std") && I + 1 < Cmd.size()) {
      Out.push_back("-std=" + Cmd[++I]);
      continue;
    }
    if (A.consume_front("--std="))
      Out.push_back(("-std=" + A).str());
    else if (A == "--include-path" || A == "--system-include" ||
             A == "--define-macro" || A == "--pre-include") {
      static const llvm::StringMap<const char *> Short = {
          {"--include-path", "-I"}, {"--system-include", "-isystem"},
          {"--define-macro", "-D"}, {"--pre-include", "-include"}};
      Out.push_back(Short.lookup(A));
      if (I + 1 < Cmd.size())
        Out.push_back(Cmd[++I]);
    } else if (A.starts_with("-O") || A.starts_with("--optimize"))
      continue; // irrelevant to the front end, and nvcc's -O forms differ
    else
      Out.push_back(A.str());
  }
  std::string Arch = targetArch(Cmd, Opts.Arch);
  Out.push_back("--cuda-device-only");
  Out.push_back("--cuda-gpu-arch=" + clangArch(Arch).str());
  Out.push_back("--cuda-path=" + Opts.CudaPath);
  Out.push_back("-Wno-unknown-cuda-version");
  // Without a version.txt clang cannot tell CUDA 13 apart from pre-9.2 and
  // rejects every <<<...>>> launch; tell it the SDK version from cuda.h.
  if (auto V = cudaVersion(Opts.CudaPath)) {
    Out.push_back("-Xclang");
    Out.push_back("-target-sdk-version=" + *V);
  }
  // CCCL (<cuda/ptx>, <cuda/barrier>) lives in include/cccl since CUDA 13;
  // nvcc adds it implicitly, clang does not. -isystem keeps -I dirs first.
  llvm::SmallString<256> Cccl(Opts.CudaPath);
  llvm::sys::path::append(Cccl, "include", "cccl");
  Out.push_back("-isystem");
  Out.push_back(std::string(Cccl));
  // Cooperative groups offer this_cluster() only to nvcc unless told that
  // the cluster intrinsics exist, which clang's CUDA headers define.
  Out.push_back("-D_CG_CLUSTER_INTRINSICS_AVAILABLE");
  std::string Resources = clangResourceDir();
  if (!Resources.empty() &&
      llvm::none_of(Cmd, [](StringRef A) { return A.starts_with("-resource-dir"); }))
    Out.push_back("-resource-dir=" + Resources);
  if (Opts.NvccView) {
    // What nvcc's device pass defines and declares (NvccView.h).
    for (std::string &D : nvccViewDefines(Opts.CudaPath, Arch))
      Out.push_back(std::move(D));
    Out.push_back("-include");
    Out.push_back(nvccPreludePath().str());
    // nvcc warns of a narrowing braced initialiser (`coord c = {blockIdx.x}`
    // into int members); clang's error would drop the function.
    Out.push_back("-Wno-c++11-narrowing");
  }
  Out.push_back("-ferror-limit=0");
  // Front-end errors are summarised by the driver; no "N errors generated".
  Out.push_back("-fno-caret-diagnostics");
  Out.push_back("-fsyntax-only");
  Out.push_back("-x");
  Out.push_back("cuda");
  Out.push_back(File.str());
  return Out;
}

/// nvcc's command for \p File: PTX with line info, or an executable.
static std::vector<std::string> nvccCommand(const std::vector<std::string> &Cmd,
                                            StringRef File,
                                            const DeviceOptions &Opts,
                                            StringRef Output, bool Executable) {
  llvm::SmallString<256> Nvcc(Opts.CudaPath);
  llvm::sys::path::append(Nvcc, "bin", "nvcc");
  std::vector<std::string> Out{std::string(Nvcc)};
  // deviceCommand has already translated nvcc's spellings and dropped what
  // is not a preprocessor or language flag; keep those nvcc understands.
  std::vector<std::string> Dev = deviceCommand(Cmd, File, Opts);
  llvm::SmallString<256> Cccl(Opts.CudaPath); // nvcc adds it by itself
  llvm::sys::path::append(Cccl, "include", "cccl");
  std::string WorkDir;
  auto PathArg = [&](StringRef P) {
    if (WorkDir.empty() || P.empty() || llvm::sys::path::is_absolute(P))
      return P.str();
    llvm::SmallString<256> A(WorkDir);
    llvm::sys::path::append(A, P);
    return std::string(A);
  };
  for (size_t I = 1; I + 1 < Dev.size(); ++I) {
    StringRef A = Dev[I];
    if (A.consume_front("-working-directory=")) {
      WorkDir = A.str();
      continue;
    }
    if (A == "-Xclang" || A == "-mllvm" || A == "-x") {
      ++I; // their value is not one of ours
      continue;
    }
    bool Taken = false;
    for (StringRef Flag : {"-isystem", "-include", "-I"}) { // paths
      if (!A.starts_with(Flag))
        continue;
      StringRef Value = A.substr(Flag.size());
      if (Value.empty() && I + 1 < Dev.size())
        Value = Dev[++I];
      if (Flag == "-isystem" && Value == Cccl)
        break;
      Out.push_back(Flag.str());
      Out.push_back(PathArg(Value));
      Taken = true;
      break;
    }
    if (Taken)
      continue;
    if (A == "-D" || A == "-U") {
      Out.push_back(A.str());
      if (++I < Dev.size())
        Out.push_back(Dev[I]);
    } else if (A.starts_with("-D") || A.starts_with("-U")) {
      Out.push_back(A.str());
    } else if (A.consume_front("-std=")) {
      A.consume_front("gnu"); // nvcc knows c++17, not gnu++17
      Out.push_back(("-std=" + (A.starts_with("++") ? "c" + A : A)).str());
    }
  }
  for (size_t I = 1; I < Cmd.size(); ++I) {
    StringRef A = Cmd[I];
    if (A == "--expt-relaxed-constexpr" || A == "-expt-relaxed-constexpr")
      Out.push_back("--expt-relaxed-constexpr");
    else if (A == "--expt-extended-lambda" || A == "-expt-extended-lambda" ||
             A == "--extended-lambda" || A == "-extended-lambda")
      Out.push_back("--extended-lambda");
    else if (A == "-rdc=true" || A == "--relocatable-device-code=true" ||
             A == "-dc" || A == "--device-c" ||
             ((A == "-rdc" || A == "--relocatable-device-code") &&
              I + 1 < Cmd.size() && Cmd[I + 1] == "true"))
      Out.push_back("-rdc=true");
  }
  std::string Arch = targetArch(Cmd, Opts.Arch);
  if (Executable)
    Out.push_back("-O3");
  else
    Out.push_back("-ptx");
  Out.insert(Out.end(), {"-lineinfo", "-gencode",
                         "arch=compute_" + Arch.substr(3) + ",code=" + Arch,
                         "-o", Output.str(), "-x", "cu", File.str()});
  return Out;
}

std::vector<std::string> nvccPtxCommand(const std::vector<std::string> &Cmd,
                                        StringRef File,
                                        const DeviceOptions &Opts,
                                        StringRef Output) {
  return nvccCommand(Cmd, File, Opts, Output, /*Executable=*/false);
}

std::vector<std::string>
nvccExecutableCommand(const std::vector<std::string> &Cmd, StringRef File,
                      const DeviceOptions &Opts, StringRef Output) {
  return nvccCommand(Cmd, File, Opts, Output, /*Executable=*/true);
}

} // namespace proxyfence
