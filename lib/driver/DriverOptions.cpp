//===- DriverOptions.cpp - what one run of the tool is asked to do ---------===//
#include "proxyfence/DriverOptions.h"

namespace proxyfence {

VerifyOptions verifyOptions(const DriverOptions &Opts) {
  VerifyOptions V = Opts.Verify;
  V.Arch = Opts.Arch;
  V.CudaPath = Opts.CudaPath;
  V.DisabledRules = Opts.DisabledRules;
  return V;
}

} // namespace proxyfence
