//===- PtxModule.h - a whole PTX module: functions, line info, CFGs -------===//
//
// Reads the PTX that nvcc (or clang) writes: the module header, `.entry` and
// `.func` bodies, `.file` and `.loc` line info (with `inlined_at` chains),
// labels with their `{ }` scopes. Instruction text is parsed and classified
// by Ptx.h, exactly as for inline asm.
//
//===----------------------------------------------------------------------===//
#ifndef PROXYFENCE_PTXMODULE_H
#define PROXYFENCE_PTXMODULE_H

#include "ptx/Ptx.h"
#include "llvm/Support/Error.h"
#include <map>
#include <string>
#include <vector>

namespace proxyfence::ptx {

/// A source position from `.loc`: file number (Module::Files), line, column
/// (0 when unknown).
struct SourcePos {
  unsigned File = 0, Line = 0, Col = 0;
  bool operator==(const SourcePos &O) const {
    return File == O.File && Line == O.Line && Col == O.Col;
  }
};

struct ModuleInstruction {
  Instruction I;
  /// Position in the .ptx text (1-based).
  unsigned Line = 0, Col = 0;
  /// Index into Module::LineInfos of the `.loc` in effect; -1 when none.
  int LineInfo = -1;
};

struct Function {
  std::string Name;
  bool IsEntry = false;
  unsigned Line = 0; // of the `.entry`/`.func` directive
  std::vector<ModuleInstruction> Body;
  struct Label {
    std::string Name;
    unsigned Scope;
    unsigned Target; // index of the instruction it precedes (Body.size(): end)
  };
  std::vector<Label> Labels;
  /// Scope tree of the body, as Program::ScopeParents.
  std::vector<unsigned> ScopeParents = {0};

  /// The instruction a branch from instruction \p From to \p Name goes to:
  /// the label visible from \p From's scope. -1 when there is none.
  int resolveLabel(unsigned From, llvm::StringRef Name) const;
};

struct Module {
  std::string Version, Target;
  /// `.file N "path"`.
  std::map<unsigned, std::string> Files;
  /// Each `.loc`, as its inlining chain: the position itself first, then the
  /// call sites it was inlined at, outermost last.
  std::vector<std::vector<SourcePos>> LineInfos;
  /// Functions with a body, in module order.
  std::vector<Function> Functions;

  /// Index into Functions of the function named \p Name; -1 if none.
  int find(llvm::StringRef Name) const;
};

/// Parses a PTX module. Fails (with a one-line reason) on text that is not
/// PTX: no leading `.version`, unbalanced braces, a body that never ends.
llvm::Expected<Module> parseModule(llvm::StringRef Text);

/// The name of the function a `call` instruction calls; empty for an
/// indirect call (through a register) or another instruction.
std::string callee(const Instruction &I);

/// Basic blocks of a function body and the edges between them.
struct Cfg {
  struct Block {
    unsigned Begin = 0, End = 0; // instruction range [Begin, End)
    std::vector<unsigned> Succs;
    bool Exits = false; // ends the function (ret, exit, falls off)
  };
  /// Blocks[0] is the entry. Empty for an empty body.
  std::vector<Block> Blocks;
};

/// Branches (`bra`, `@p bra`, `brx.idx`), `ret`, `exit`, `trap`; a guarded
/// instruction may also fall through. An unresolved or indirect branch may go
/// to any label.
Cfg buildCfg(const Function &F);

} // namespace proxyfence::ptx

#endif
