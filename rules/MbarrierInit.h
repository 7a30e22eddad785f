//===- MbarrierInit.h - proxyfence-mbarrier-init: messages and fixes -------===//
//
// The rule over the init-publication analysis (analysis/InitPublication.h):
// what a finding says, and the edits that publish the init.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_RULES_MBARRIERINIT_H
#define PROXYFENCE_RULES_MBARRIERINIT_H

#include "analysis/InitPublication.h"
#include "fix/Fixes.h"
#include <string>
#include <vector>

namespace proxyfence {

/// One finding's fix: every edit it needs, or why there is none.
struct InitFix {
  bool Ok = false;
  std::string Reason;
  std::vector<PlannedFix> Edits;
};

/// Plans the edits of each finding (result I fixes finding I): the init fence
/// right after the last init of the initialising thread's block (after a loop
/// of inits); a relaxed cluster arrive + wait, or `__syncthreads()`, after
/// the init at a statement of the kernel body every thread reaches.
std::vector<InitFix> planInitFixes(FixPlanner &Planner, MbarrierAnalyzer &A,
                                   const std::vector<InitFinding> &Findings);


/// The warning text of a finding, and the note for one of its uses.
std::string initFindingMessage(const InitFinding &F);
std::string initUseNote(const InitFinding &F, const Event &Use);

} // namespace proxyfence

#endif
