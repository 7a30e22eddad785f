//===- VerifySites.h - where each finding is written, for verification -----===//
//
// The report of a translation unit records each finding as byte ranges of
// files, so that verification (lib/verify) can find its instructions in the
// PTX of the fixed file after the AST is gone.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_REPORT_VERIFYSITES_H
#define PROXYFENCE_REPORT_VERIFYSITES_H

#include <string>
#include <vector>

namespace clang {
class SourceManager;
}

namespace proxyfence {

struct Finding;
struct InitFinding;

/// Where a statement is written: file and byte range (expansion locations).
struct SourceSpan {
  std::string File;
  unsigned Begin = 0, End = 0;
};

/// What verification needs of one finding of the source analysis.
struct VerifySite {
  enum KindTy {
    Proxy,       // a proxy rule: access -> async operation
    InitCluster, // mbarrier-init: init -> use by another CTA
    InitCta,     // mbarrier-init: init -> use by other threads of the CTA
    InitAsync,   // mbarrier-init, strict: init -> async-proxy use
  };
  KindTy Kind = Proxy;
  std::string Rule;
  /// Findings reported as one warning share it (as in Output.cpp).
  std::string Group;
  /// The statements of the access and of the async operation in the
  /// analysed function, and where each is written (inside a callee). For
  /// mbarrier-init: the init and one of its uses.
  SourceSpan Access, AccessOp, Async, AsyncOp;
  bool Fixed = false; // a fix was planned for it
};

VerifySite makeVerifySite(const clang::SourceManager &SM, const Finding &F,
                          bool Fixed);

/// One site per use of an mbarrier-init finding, all in one group.
void addInitVerifySites(std::vector<VerifySite> &Sites,
                        const clang::SourceManager &SM, const InitFinding &F,
                        bool Fixed);

} // namespace proxyfence

#endif
