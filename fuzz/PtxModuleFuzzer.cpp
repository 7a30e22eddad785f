//===- PtxModuleFuzzer.cpp - libFuzzer target: PTX module parser + CFG ----===//
//
// The input is a .ptx file as `ptx-check` reads it. Parsing may fail (with a
// message); what parses must give a well-formed module: line info, labels
// and basic blocks whose indices stay inside their tables.
//
//===----------------------------------------------------------------------===//
#include "ptx/PtxModule.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace proxyfence::ptx;

static void require(bool Ok, const char *What) {
  if (!Ok) {
    std::fprintf(stderr, "PtxModuleFuzzer: invariant broken: %s\n", What);
    std::abort();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<Module> M = parseModule(Text);
  if (!M) {
    std::string Why = llvm::toString(M.takeError());
    require(!Why.empty() && Why.find('\n') == std::string::npos,
            "a parse error is one non-empty line");
    return 0;
  }
  for (const Function &F : M->Functions) {
    require(M->find(F.Name) >= 0, "a function is found by its name");
    for (const Function::Label &L : F.Labels) {
      require(L.Target <= F.Body.size(), "label target inside the body");
      require(L.Scope < F.ScopeParents.size(), "label scope exists");
    }
    for (unsigned K = 0; K < F.Body.size(); ++K) {
      const ModuleInstruction &MI = F.Body[K];
      require(MI.LineInfo == -1 ||
                  (MI.LineInfo >= 0 &&
                   size_t(MI.LineInfo) < M->LineInfos.size()),
              "line info exists");
      require(MI.Line >= 1 && MI.Col >= 1, "positions are 1-based");
      (void)classify(MI.I);
      (void)callee(MI.I);
      if (!MI.I.Operands.empty())
        require(F.resolveLabel(K, MI.I.Operands[0].Text) <=
                    static_cast<int>(F.Body.size()),
                "a resolved label is inside the body");
    }
    Cfg G = buildCfg(F);
    require(G.Blocks.empty() == F.Body.empty(), "a body has blocks");
    unsigned Next = 0;
    for (const Cfg::Block &B : G.Blocks) {
      require(B.Begin == Next && B.Begin < B.End && B.End <= F.Body.size(),
              "blocks partition the body");
      Next = B.End;
      for (unsigned S : B.Succs)
        require(S < G.Blocks.size(), "successor exists");
    }
    require(G.Blocks.empty() || Next == F.Body.size(), "blocks cover the body");
  }
  return 0;
}
