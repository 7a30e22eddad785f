//===- Output.h - findings as clang diagnostics and fix files --------------===//
#ifndef PROXYFENCE_OUTPUT_H
#define PROXYFENCE_OUTPUT_H

#include "rules/FenceClobber.h"
#include "fix/Fixes.h"
#include "rules/MbarrierInit.h"
#include "rules/OrderRules.h"
#include "clang/Tooling/Core/Diagnostic.h"
#include "llvm/Support/raw_ostream.h"

namespace proxyfence {

/// Prints findings in clang's format (warning, notes, source line, caret,
/// fix-it) and returns them as tooling diagnostics for --export-fixes.
std::vector<clang::tooling::Diagnostic>
reportFindings(clang::ASTContext &Ctx, const std::vector<Finding> &Findings,
               const std::vector<PlannedFix> &Fixes, FixPlanner &Planner,
               llvm::raw_ostream &OS, bool Colors);

/// The same for proxyfence-mbarrier-init: a warning at each init, notes at
/// the relaxed barrier and the uses, and the fix's edits.
std::vector<clang::tooling::Diagnostic>
reportInitFindings(clang::ASTContext &Ctx,
                   const std::vector<InitFinding> &Findings,
                   const std::vector<InitFix> &Fixes, FixPlanner &Planner,
                   llvm::raw_ostream &OS, bool Colors);

/// The same for proxyfence-fence-clobber: a warning at each asm statement,
/// the clobber as its fix, notes at the calls that rely on it.
std::vector<clang::tooling::Diagnostic>
reportClobberFindings(clang::ASTContext &Ctx,
                      const std::vector<ClobberFinding> &Findings,
                      llvm::raw_ostream &OS, bool Colors);

/// Writes the YAML that clang-apply-replacements reads.
/// proxyfence-tcgen05-order and proxyfence-tensormap findings.
std::vector<clang::tooling::Diagnostic>
reportOrderFindings(clang::ASTContext &Ctx,
                    const std::vector<OrderFinding> &Findings,
                    const std::vector<PlannedFix> &Fixes, FixPlanner &Planner,
                    llvm::raw_ostream &OS, bool Colors);

llvm::Error exportFixes(llvm::StringRef Path,
                        const clang::tooling::TranslationUnitDiagnostics &TUD);

} // namespace proxyfence

#endif
