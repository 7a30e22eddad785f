//===- Subcommands.h - the CLI's subcommands besides the analysis ----------===//
#ifndef PROXYFENCE_SUBCOMMANDS_H
#define PROXYFENCE_SUBCOMMANDS_H

#include "proxyfence/Driver.h"
#include "llvm/Support/raw_ostream.h"

namespace proxyfence {

/// `proxyfence verify FILE...`: exit 0 verified, 1 a layer failed, 2 bad
/// input.
int runVerifyCommand(const DriverOptions &Opts, llvm::raw_ostream &Out,
                     llvm::raw_ostream &Err);


/// `proxyfence ptx-check FILE.ptx...`: exit 0 clean, 1 findings, 2 bad input.
int runPtxCheck(const DriverOptions &Opts, llvm::raw_ostream &Out,
                llvm::raw_ostream &Err);

} // namespace proxyfence

#endif
