//===- OutcomeFile.h - one input's analysis as a file ----------------------===//
//
// The result of analysing one input, written to and read back from JSON:
// how an isolated analysis (a child process) hands its result back, and
// what the result cache stores.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_OUTCOMEFILE_H
#define PROXYFENCE_OUTCOMEFILE_H

#include "driver/InputJob.h"
#include "llvm/Support/Error.h"
#include <string>

namespace proxyfence {

std::string writeOutcome(const FileOutcome &O);

/// The outcome \p Text holds, or an error for text writeOutcome did not
/// write.
llvm::Expected<FileOutcome> readOutcome(llvm::StringRef Text);

} // namespace proxyfence

#endif
