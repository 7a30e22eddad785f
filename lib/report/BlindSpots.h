//===- BlindSpots.h - device code the analysis could not see ---------------===//
//
// "0 findings" must not hide an empty analysis: device functions whose body
// is a stub (preprocessed away to nothing, or a trap), and functions whose
// body lost code to front-end errors, are counted and located.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_BLINDSPOTS_H
#define PROXYFENCE_BLINDSPOTS_H

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/ArrayRef.h"
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace proxyfence {

struct BlindSpots {
  unsigned DeviceFunctions = 0; // written device function bodies seen
  /// "file:line:col: name: why", one per written body.
  std::vector<std::string> Stubs;
  std::vector<std::string> Dropped;
  /// Written asm statements of that code by what they do (TMA, GMMA,
  /// UTCCP, mbarrier, ...): proof that library bodies are real.
  std::map<std::string, unsigned> AsmKinds;
  /// Calls that a template's pattern leaves unresolved (the callee depends
  /// on its parameters) and an instantiation of this translation unit
  /// resolves: what analysing the code as instantiated gained. Each call
  /// once, whatever its instantiations.
  unsigned ResolvedCalls = 0;
  void add(const BlindSpots &O);
  /// The same code analysed for another architecture: a function is a stub
  /// only where every architecture found it one.
  void addArchitecture(const BlindSpots &O);
  /// Most of the device code is stubs: the macros are likely not the
  /// build's (wrong --arch, missing -D).
  bool mostlyStubs() const {
    return DeviceFunctions >= 2 && Stubs.size() * 2 > DeviceFunctions;
  }
};

/// Device functions with bodies written where \p Counted says (the code
/// that is reported on), each body once whatever its instantiations: stubs
/// (empty where an #if removed the code; only __trap(), __brkpt(),
/// asm("trap;") and the printf/assert around them) and bodies holding one of
/// \p Errors (front-end error locations) or declared invalid.
BlindSpots findBlindSpots(clang::ASTContext &Ctx,
                          const std::function<bool(clang::SourceLocation)> &Counted,
                          llvm::ArrayRef<clang::SourceLocation> Errors);

} // namespace proxyfence

#endif
