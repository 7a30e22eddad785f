//===- PtxFuzzer.cpp - libFuzzer target: inline-asm PTX parse + classify --===//
//
// The input is an asm template as it appears in a CUDA asm statement. Beyond
// "no crash, no hang, no sanitizer report", it checks the invariants the
// event extraction relies on: offsets inside the text, scope numbers inside
// the scope tree, operand indices inside the operand list.
//
//===----------------------------------------------------------------------===//
#include "ptx/Ptx.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace proxyfence::ptx;

static void require(bool Ok, const char *What) {
  if (!Ok) {
    std::fprintf(stderr, "PtxFuzzer: invariant broken: %s\n", What);
    std::abort();
  }
}

static void checkIndex(int Index, size_t Size, const char *What) {
  require(Index == -1 || (Index >= 0 && size_t(Index) < Size), What);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  // Named operands as in `asm("..." : [bar] "r"(b), ...)`, so %[name] maps.
  static const std::string Names[] = {"", "tmap", "bar", "", "smem", "desc"};
  Program P = parse(Text, Names);

  const size_t Scopes = P.ScopeParents.size();
  require(Scopes >= 1 && P.ScopeParents[0] == 0, "scope 0 is the root");
  for (size_t S = 1; S < Scopes; ++S)
    require(P.ScopeParents[S] < S, "a scope's parent is an earlier scope");
  require(P.Labels.size() == P.LabelOffsets.size() &&
              P.Labels.size() == P.LabelScopes.size(),
          "one offset and scope per label");
  for (size_t L = 0; L < P.Labels.size(); ++L) {
    require(P.LabelOffsets[L] < Size, "label offset inside the text");
    require(P.LabelScopes[L] < Scopes, "label scope exists");
  }
  for (const Directive &D : P.Directives)
    require(D.Offset < Size, "directive offset inside the text");

  unsigned Previous = 0;
  for (const Instruction &I : P.Instructions) {
    require(I.Offset < Size, "instruction offset inside the text");
    require(I.Offset >= Previous, "instructions in text order");
    Previous = I.Offset;
    require(I.Scope < Scopes, "instruction scope exists");
    require(!I.Opcode.empty() && !I.Parts.empty(), "an instruction has an opcode");
    for (const Effect &E : classify(I)) {
      checkIndex(E.MemOperand, I.Operands.size(), "memory operand exists");
      checkIndex(E.MbarrierOperand, I.Operands.size(), "mbarrier operand exists");
    }
  }
  return 0;
}
