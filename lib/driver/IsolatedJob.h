//===- IsolatedJob.h - one input analysed in a child process ---------------===//
#ifndef PROXYFENCE_DRIVER_ISOLATEDJOB_H
#define PROXYFENCE_DRIVER_ISOLATEDJOB_H

#include "driver/InputJob.h"

namespace proxyfence {

/// analyseInput in a child process that is killed after Opts.Timeout
/// seconds (0: never): a file that makes clang or the analysis run away
/// costs its own result only. The child's crash or time-out comes back as
/// FileOutcome::Failure. Callers may be threads of a process that runs no
/// front end itself (the child inherits only the calling thread).
FileOutcome analyseInputIsolated(const DriverOptions &Opts,
                                 const InputCommand &Job,
                                 const std::set<std::string> &Reported);

} // namespace proxyfence

#endif
