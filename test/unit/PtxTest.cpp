//===- PtxTest.cpp - PTX parser and classifier tests ----------------------===//
//
// Many inputs are real inline-asm templates from CCCL (cuda/__ptx), CUTLASS /
// CuTe, ThunderKittens, DeepGEMM and TensorRT-LLM, written as clang's
// GCCAsmStmt::getAsmString() returns them (C escapes already resolved).
//
//===----------------------------------------------------------------------===//
#include "ptx/Ptx.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

using namespace proxyfence::ptx;

namespace {

const char *kindName(EffectKind K) {
  switch (K) {
  case EffectKind::GenericWrite:
    return "GenericWrite";
  case EffectKind::GenericRead:
    return "GenericRead";
  case EffectKind::AsyncRead:
    return "AsyncRead";
  case EffectKind::AsyncWrite:
    return "AsyncWrite";
  case EffectKind::ProxyFence:
    return "ProxyFence";
  case EffectKind::InitFence:
    return "InitFence";
  case EffectKind::Barrier:
    return "Barrier";
  case EffectKind::ClusterArrive:
    return "ClusterArrive";
  case EffectKind::ClusterWait:
    return "ClusterWait";
  case EffectKind::MbarrierInit:
    return "MbarrierInit";
  case EffectKind::MbarrierArrive:
    return "MbarrierArrive";
  case EffectKind::MbarrierWait:
    return "MbarrierWait";
  case EffectKind::RegisterFence:
    return "RegisterFence";
  case EffectKind::MbarrierComplete:
    return "MbarrierComplete";
  case EffectKind::TmemAccess:
    return "TmemAccess";
  case EffectKind::TmemWaitLd:
    return "TmemWaitLd";
  case EffectKind::TmemWaitSt:
    return "TmemWaitSt";
  case EffectKind::TmemFenceBefore:
    return "TmemFenceBefore";
  case EffectKind::TmemFenceAfter:
    return "TmemFenceAfter";
  case EffectKind::TmemCommit:
    return "TmemCommit";
  case EffectKind::TmemDealloc:
    return "TmemDealloc";
  case EffectKind::TensormapWrite:
    return "TensormapWrite";
  case EffectKind::TensormapRelease:
    return "TensormapRelease";
  case EffectKind::TensormapAcquire:
    return "TensormapAcquire";
  }
  return "?";
}

const char *opName(AsyncOp O) {
  switch (O) {
  case AsyncOp::None:
    return "";
  case AsyncOp::BulkStore:
    return ".BulkStore";
  case AsyncOp::TensorStore:
    return ".TensorStore";
  case AsyncOp::ReduceStore:
    return ".ReduceStore";
  case AsyncOp::BulkLoad:
    return ".BulkLoad";
  case AsyncOp::TensorLoad:
    return ".TensorLoad";
  case AsyncOp::Wgmma:
    return ".Wgmma";
  case AsyncOp::Tcgen05Mma:
    return ".Tcgen05Mma";
  case AsyncOp::Tcgen05Cp:
    return ".Tcgen05Cp";
  case AsyncOp::TryCancel:
    return ".TryCancel";
  case AsyncOp::Tcgen05Ld:
    return ".Tcgen05Ld";
  case AsyncOp::Tcgen05St:
    return ".Tcgen05St";
  case AsyncOp::Tcgen05Shift:
    return ".Tcgen05Shift";
  }
  return "?";
}

const char *scopeName(BarrierScope S) {
  switch (S) {
  case BarrierScope::Warp:
    return "warp";
  case BarrierScope::Cta:
    return "cta";
  case BarrierScope::Named:
    return "named";
  case BarrierScope::Cluster:
    return "cluster";
  }
  return "?";
}

const char *spaceName(FenceSpace S) {
  switch (S) {
  case FenceSpace::All:
    return "all";
  case FenceSpace::SharedCta:
    return "shared::cta";
  case FenceSpace::SharedCluster:
    return "shared::cluster";
  case FenceSpace::Global:
    return "global";
  }
  return "?";
}

/// One effect as "Kind[.Op] [mN] [mbN] [scope] [space] [flags]", so that
/// tables of cases stay readable. Fields at their defaults are left out.
std::string str(const Effect &E) {
  std::string S = kindName(E.Kind);
  S += opName(E.Op);
  if (E.MemOperand >= 0)
    S += " m" + std::to_string(E.MemOperand);
  if (E.MbarrierOperand >= 0)
    S += " mb" + std::to_string(E.MbarrierOperand);
  if (E.Kind == EffectKind::Barrier || E.Kind == EffectKind::ClusterArrive ||
      E.Kind == EffectKind::ClusterWait)
    S += std::string(" ") + scopeName(E.Scope);
  if (E.Kind == EffectKind::ProxyFence)
    S += std::string(" ") + spaceName(E.Space);
  if (E.ArriveOnly)
    S += " arrive";
  if (E.Relaxed)
    S += " relaxed";
  if (E.GenericAddress)
    S += " generic";
  if (E.CrossCta)
    S += " cross";
  return S;
}

/// The effects of every instruction in \p Asm, in order, joined by "; ".
std::string effects(llvm::StringRef Asm,
                    llvm::ArrayRef<std::string> Names = {}) {
  std::string Out;
  for (const Instruction &I : parse(Asm, Names).Instructions)
    for (const Effect &E : classify(I))
      Out += (Out.empty() ? "" : "; ") + str(E);
  return Out;
}

std::vector<std::string> opcodes(const Program &P) {
  std::vector<std::string> Out;
  for (const Instruction &I : P.Instructions)
    Out.push_back(I.Opcode);
  return Out;
}

std::vector<std::string> texts(const Instruction &I) {
  std::vector<std::string> Out;
  for (const Operand &O : I.Operands)
    Out.push_back(O.Text);
  return Out;
}

using Strings = std::vector<std::string>;

struct Case {
  const char *Asm;
  const char *Expected;
};

void checkTable(const std::vector<Case> &Cases) {
  for (const Case &C : Cases)
    EXPECT_EQ(effects(C.Asm), C.Expected) << "asm: " << C.Asm;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

TEST(PtxParse, EmptyAndBlankInputs) {
  for (const char *S : {"", " ", "\n\t", ";", ";;;", "{}", "{ ; }", "{\n}\n",
                        "// only a comment", "/* only */", "\r\n"}) {
    Program P = parse(S);
    EXPECT_TRUE(P.Instructions.empty()) << S;
    EXPECT_TRUE(P.Labels.empty()) << S;
  }
}

TEST(PtxParse, SingleInstruction) {
  Program P = parse("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], "
                    "%2;");
  ASSERT_EQ(P.Instructions.size(), 1u);
  const Instruction &I = P.Instructions[0];
  EXPECT_EQ(I.Opcode, "cp.async.bulk.global.shared::cta.bulk_group");
  EXPECT_EQ(I.Parts, (Strings{"cp", "async", "bulk", "global", "shared::cta",
                              "bulk_group"}));
  EXPECT_EQ(texts(I), (Strings{"[%0]", "[%1]", "%2"}));
  EXPECT_EQ(I.Offset, 0u);
  EXPECT_TRUE(I.Predicate.empty());
  EXPECT_TRUE(I.Operands[0].IsAddress);
  EXPECT_TRUE(I.Operands[1].IsAddress);
  EXPECT_FALSE(I.Operands[2].IsAddress);
  EXPECT_EQ(I.Operands[0].AsmOperand, 0);
  EXPECT_EQ(I.Operands[1].AsmOperand, 1);
  EXPECT_EQ(I.Operands[2].AsmOperand, 2);
}

TEST(PtxParse, HasPartMatchesWholeParts) {
  Instruction I = parse("mbarrier.arrive.release.cluster.shared::cluster.b64 "
                        "_, [%0];")
                      .Instructions.at(0);
  EXPECT_TRUE(I.hasPart("shared::cluster"));
  EXPECT_TRUE(I.hasPart("cluster"));
  EXPECT_TRUE(I.hasPart("mbarrier"));
  EXPECT_FALSE(I.hasPart("shared"));
  EXPECT_FALSE(I.hasPart("shared::cta"));
  EXPECT_FALSE(I.hasPart("arrive.release"));
  EXPECT_FALSE(I.hasPart(""));
}

TEST(PtxParse, InstructionWithoutOperands) {
  Program P = parse("fence.proxy.async.shared::cta;");
  ASSERT_EQ(P.Instructions.size(), 1u);
  EXPECT_TRUE(P.Instructions[0].Operands.empty());
  EXPECT_EQ(P.Instructions[0].Parts,
            (Strings{"fence", "proxy", "async", "shared::cta"}));
}

TEST(PtxParse, SeparatedBySemicolonsAndNewlines) {
  const char *Asm = "bar.sync 0; fence.proxy.async;\n\tbar.arrive 1, 64;\n"
                    "barrier.cluster.wait;";
  Program P = parse(Asm);
  EXPECT_EQ(opcodes(P), (Strings{"bar.sync", "fence.proxy.async", "bar.arrive",
                                 "barrier.cluster.wait"}));
  llvm::StringRef Text(Asm);
  EXPECT_EQ(P.Instructions[0].Offset, 0u);
  EXPECT_EQ(P.Instructions[1].Offset, Text.find("fence"));
  EXPECT_EQ(P.Instructions[2].Offset, Text.find("bar.arrive"));
  EXPECT_EQ(P.Instructions[3].Offset, Text.find("barrier.cluster"));
}

TEST(PtxParse, NewlinesInsideAnInstructionAreWhitespace) {
  // TensorRT-LLM xqa/gmma_impl.cuh writes one wgmma operand per line.
  Program P = parse("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3\n"
                    "{%0, %1, %2, %3},\n"
                    "%4,\n"
                    "%5,\n"
                    "%6, 1, 1;\n");
  ASSERT_EQ(P.Instructions.size(), 1u);
  const Instruction &I = P.Instructions[0];
  EXPECT_EQ(texts(I),
            (Strings{"{%0, %1, %2, %3}", "%4", "%5", "%6", "1", "1"}));
  EXPECT_TRUE(I.Operands[0].IsVector);
  EXPECT_EQ(I.Operands[1].AsmOperand, 4);
}

TEST(PtxParse, ScopesAndRegDirectives) {
  // CCCL cuda::ptx::tcgen05_mma (cta_group::1, kind::f16, with
  // disable_output_lane).
  const char *Asm =
      "{\n\t .reg .pred PRED_enable_input_d; \n\t"
      "setp.ne.b32 PRED_enable_input_d, %8, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, {%4, %5, %6, %7}, "
      "PRED_enable_input_d, %9;\n\t"
      "}";
  Program P = parse(Asm);
  EXPECT_EQ(opcodes(P),
            (Strings{"setp.ne.b32", "tcgen05.mma.cta_group::1.kind::f16"}));
  const Instruction &Mma = P.Instructions[1];
  EXPECT_EQ(texts(Mma), (Strings{"[%0]", "%1", "%2", "%3", "{%4, %5, %6, %7}",
                                 "PRED_enable_input_d", "%9"}));
  EXPECT_EQ(Mma.Offset, llvm::StringRef(Asm).find("tcgen05"));
  EXPECT_TRUE(P.Labels.empty());
}

TEST(PtxParse, NestedScopes) {
  Program P = parse("{ .reg .b32 r<4>; { .reg .pred p; { bar.sync 0; } "
                    "fence.proxy.async; } }");
  EXPECT_EQ(opcodes(P), (Strings{"bar.sync", "fence.proxy.async"}));
}

TEST(PtxParse, ClosingBraceEndsAnInstructionWithoutSemicolon) {
  Program P = parse("{ fence.proxy.async.shared::cta }{bar.sync 0}");
  EXPECT_EQ(opcodes(P), (Strings{"fence.proxy.async.shared::cta", "bar.sync"}));
  EXPECT_TRUE(P.Instructions[0].Operands.empty());
  EXPECT_EQ(texts(P.Instructions[1]), (Strings{"0"}));
}

TEST(PtxParse, MissingFinalSemicolon) {
  Program P = parse("mbarrier.init.shared::cta.b64 [%0], %1");
  ASSERT_EQ(P.Instructions.size(), 1u);
  EXPECT_EQ(texts(P.Instructions[0]), (Strings{"[%0]", "%1"}));
}

TEST(PtxParse, DirectivesAreSkipped) {
  Program P = parse(".reg .b32 r<4>;\n.reg .pred p;\n.reg .b64 %%rd<2>;\n"
                    ".pragma \"nounroll\";\n.reg .b16 lo, hi;\n"
                    "mov.b32 {lo, hi}, %1;");
  EXPECT_EQ(opcodes(P), (Strings{"mov.b32"}));
  EXPECT_TRUE(P.Labels.empty());
}

TEST(PtxParse, DirectiveWithoutSemicolonEndsAtNewline) {
  Program P = parse(".reg .pred p\nbar.sync 0;");
  EXPECT_EQ(opcodes(P), (Strings{"bar.sync"}));
}

TEST(PtxParse, LabelsAndBranches) {
  // CUTLASS ClusterBarrier::wait.
  const char *Asm = "{\n\t"
                    ".reg .pred       P1; \n\t"
                    "LAB_WAIT: \n\t"
                    "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1, "
                    "%2; \n\t"
                    "@P1 bra DONE; \n\t"
                    "bra     LAB_WAIT; \n\t"
                    "DONE: \n\t"
                    "}";
  Program P = parse(Asm);
  EXPECT_EQ(P.Labels, (Strings{"LAB_WAIT", "DONE"}));
  EXPECT_EQ(opcodes(P), (Strings{"mbarrier.try_wait.parity.shared::cta.b64",
                                 "bra", "bra"}));
  EXPECT_EQ(P.Instructions[1].Predicate, "P1");
  EXPECT_EQ(texts(P.Instructions[1]), (Strings{"DONE"}));
  EXPECT_EQ(P.Instructions[1].Operands[0].AsmOperand, -1);
  EXPECT_EQ(P.Instructions[2].Predicate, "");
  EXPECT_EQ(texts(P.Instructions[2]), (Strings{"LAB_WAIT"}));
}

TEST(PtxParse, LabelFollowedByInstructionOnSameLine) {
  Program P = parse("L1: bar.sync 0;L2:fence.proxy.async;L3:");
  EXPECT_EQ(P.Labels, (Strings{"L1", "L2", "L3"}));
  EXPECT_EQ(opcodes(P), (Strings{"bar.sync", "fence.proxy.async"}));
  EXPECT_EQ(P.Instructions[0].Offset, 4u);
  EXPECT_EQ(P.Instructions[1].Offset, 18u);
}

TEST(PtxParse, LabelWithUniqueIdSuffix) {
  Program P = parse("{\n.reg .pred p;\nwaitLoop%=:\n"
                    "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                    "@!p bra waitLoop%=;\n}");
  EXPECT_EQ(P.Labels, (Strings{"waitLoop%="}));
  ASSERT_EQ(P.Instructions.size(), 2u);
  EXPECT_EQ(P.Instructions[1].Predicate, "!p");
  EXPECT_EQ(texts(P.Instructions[1]), (Strings{"waitLoop%="}));
}

TEST(PtxParse, DoubleColonIsNotALabel) {
  Program P = parse("tcgen05.fence::before_thread_sync; foo::bar;");
  EXPECT_TRUE(P.Labels.empty());
  EXPECT_EQ(opcodes(P),
            (Strings{"tcgen05.fence::before_thread_sync", "foo::bar"}));
}

TEST(PtxParse, GuardPredicates) {
  const char *Asm = "@p mbarrier.arrive.shared::cta.b64 _, [%0];\n"
                    "@!p bra.uni DONE;\n"
                    "@%%p1 st.shared.u32 [%1], %2;\n"
                    "@!%%p2 bar.sync 0;\n"
                    "@ q fence.proxy.async;";
  Program P = parse(Asm);
  ASSERT_EQ(P.Instructions.size(), 5u);
  EXPECT_EQ(P.Instructions[0].Predicate, "p");
  EXPECT_EQ(P.Instructions[1].Predicate, "!p");
  EXPECT_EQ(P.Instructions[2].Predicate, "%p1");
  EXPECT_EQ(P.Instructions[3].Predicate, "!%p2");
  EXPECT_EQ(P.Instructions[4].Predicate, "q");
  EXPECT_EQ(P.Instructions[2].Opcode, "st.shared.u32");
  // The instruction starts at its guard.
  llvm::StringRef Text(Asm);
  EXPECT_EQ(P.Instructions[0].Offset, 0u);
  EXPECT_EQ(P.Instructions[1].Offset, Text.find("@!p"));
  EXPECT_EQ(P.Instructions[2].Offset, Text.find("@%%p1"));
  // A guard does not change what the instruction does.
  EXPECT_EQ(str(classify(P.Instructions[0]).at(0)), "MbarrierArrive m1 mb1");
  EXPECT_EQ(str(classify(P.Instructions[2]).at(0)), "GenericWrite m0");
}

TEST(PtxParse, GuardWithoutInstructionIsDropped) {
  Program P = parse("@p; @!q }; bar.sync 0; @");
  EXPECT_EQ(opcodes(P), (Strings{"bar.sync"}));
}

TEST(PtxParse, Comments) {
  const char *Asm = "// leading; comment { with } punctuation\n"
                    "bar.sync 0; // trailing; comment\n"
                    "/* block; { comment\n spanning ; lines */ fence.proxy."
                    "async;\n"
                    "st.shared.u32 [%0], /* inline, comma */ %1;\n"
                    "ld.shared.u32 %0, [%1]; /* unterminated ; bar.sync 1;";
  Program P = parse(Asm);
  EXPECT_EQ(opcodes(P), (Strings{"bar.sync", "fence.proxy.async",
                                 "st.shared.u32", "ld.shared.u32"}));
  EXPECT_EQ(texts(P.Instructions[2]), (Strings{"[%0]", "%1"}));
  EXPECT_EQ(P.Instructions[1].Offset, llvm::StringRef(Asm).find("fence"));
}

TEST(PtxParse, PercentEscapes) {
  Program P = parse("mov.u32 %0, %%laneid;\nmov.u32 %1, %%clusterid.x;");
  ASSERT_EQ(P.Instructions.size(), 2u);
  const Instruction &I = P.Instructions[0];
  EXPECT_EQ(texts(I), (Strings{"%0", "%laneid"}));
  EXPECT_EQ(I.Operands[0].AsmOperand, 0);
  EXPECT_EQ(I.Operands[1].AsmOperand, -1);
  EXPECT_EQ(texts(P.Instructions[1]), (Strings{"%1", "%clusterid.x"}));
}

TEST(PtxParse, EscapedPercentBeforeDigitIsNotAnAsmOperand) {
  Operand O = parse("add.s32 %0, %%1;").Instructions.at(0).Operands.at(1);
  EXPECT_EQ(O.Text, "%1");
  EXPECT_EQ(O.AsmOperand, -1);
}

TEST(PtxParse, SingleLetterPercentStaysLiteral) {
  // Basic asm (no operand list) is not a template: `%r1` is a register.
  Operand O = parse("mov.u32 %r1, %laneid;").Instructions.at(0).Operands.at(0);
  EXPECT_EQ(O.Text, "%r1");
  EXPECT_EQ(O.AsmOperand, -1);
}

TEST(PtxParse, MultiDigitAndOverflowingOperandNumbers) {
  Instruction I =
      parse("foo %12, [%345], %99999999999999999999, x%7;").Instructions.at(0);
  EXPECT_EQ(I.Operands[0].AsmOperand, 12);
  EXPECT_EQ(I.Operands[1].AsmOperand, 345);
  EXPECT_EQ(I.Operands[2].AsmOperand, -1);
  EXPECT_EQ(I.Operands[3].AsmOperand, 7);
}

TEST(PtxParse, NamedOperands) {
  Strings Names = {"val", "addr", ""};
  Instruction I =
      parse("st.shared.u32 [%[addr]], %[val];", Names).Instructions.at(0);
  EXPECT_EQ(texts(I), (Strings{"[%[addr]]", "%[val]"}));
  EXPECT_EQ(I.Operands[0].AsmOperand, 1);
  EXPECT_EQ(I.Operands[1].AsmOperand, 0);
  EXPECT_TRUE(I.Operands[0].IsAddress);
  EXPECT_EQ(effects("st.shared.u32 [%[addr]], %[val];", Names),
            "GenericWrite m0");
}

TEST(PtxParse, UnknownOrEmptyOperandNames) {
  Strings Names = {"a", ""};
  Instruction I = parse("foo %[nope], %[], [%[nope] + %1], %[a];", Names)
                      .Instructions.at(0);
  EXPECT_EQ(I.Operands[0].AsmOperand, -1);
  EXPECT_EQ(I.Operands[1].AsmOperand, -1);
  EXPECT_EQ(I.Operands[2].AsmOperand, 1); // The first reference that resolves.
  EXPECT_EQ(I.Operands[3].AsmOperand, 0);
  // Without names nothing symbolic resolves.
  EXPECT_EQ(parse("foo %[a];").Instructions.at(0).Operands[0].AsmOperand, -1);
}

TEST(PtxParse, AddressOperands) {
  Instruction I = parse("foo [%0], [%1+16], [ %2 + 8 ], [remAddr32], "
                        "[%3, {%4, %5}], [tmap, {c0}];")
                      .Instructions.at(0);
  ASSERT_EQ(I.Operands.size(), 6u);
  for (const Operand &O : I.Operands)
    EXPECT_TRUE(O.IsAddress) << O.Text;
  EXPECT_EQ(I.Operands[1].Text, "[%1+16]");
  EXPECT_EQ(I.Operands[1].AsmOperand, 1);
  EXPECT_EQ(I.Operands[2].Text, "[ %2 + 8 ]");
  EXPECT_EQ(I.Operands[2].AsmOperand, 2);
  EXPECT_EQ(I.Operands[3].AsmOperand, -1);
  EXPECT_FALSE(I.Operands[0].IsVector);
  EXPECT_TRUE(I.Operands[4].IsVector); // The coordinates inside the address.
  EXPECT_EQ(I.Operands[4].AsmOperand, 3);
  EXPECT_TRUE(I.Operands[5].IsVector);
  EXPECT_EQ(I.Operands[5].AsmOperand, -1);
}

TEST(PtxParse, VectorOperands) {
  Instruction I =
      parse("st.shared.v4.f32 [%0],{%1,%2, %3 ,%4};").Instructions.at(0);
  ASSERT_EQ(I.Operands.size(), 2u);
  EXPECT_TRUE(I.Operands[1].IsVector);
  EXPECT_FALSE(I.Operands[1].IsAddress);
  EXPECT_EQ(I.Operands[1].Text, "{%1,%2, %3 ,%4}");
  EXPECT_EQ(I.Operands[1].AsmOperand, 1);
  Instruction M = parse("mov.b32 {lo, hi}, %1;").Instructions.at(0);
  EXPECT_TRUE(M.Operands[0].IsVector);
  EXPECT_EQ(M.Operands[0].AsmOperand, -1);
}

TEST(PtxParse, CommasInsideParenthesesDoNotSplit) {
  Instruction I =
      parse("call.uni (retval0), foo, (param0, param1);").Instructions.at(0);
  EXPECT_EQ(texts(I), (Strings{"(retval0)", "foo", "(param0, param1)"}));
}

TEST(PtxParse, TmaLoadOperands) {
  // ThunderKittens tma::load_async (4d, multicast, cache hint).
  Instruction I =
      parse("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::"
            "complete_tx::bytes.multicast::cluster.L2::cache_hint"
            " [%0], [%1, {%3, %4, %5, %6}], [%2], %7, %8;")
          .Instructions.at(0);
  EXPECT_EQ(texts(I),
            (Strings{"[%0]", "[%1, {%3, %4, %5, %6}]", "[%2]", "%7", "%8"}));
  EXPECT_EQ(I.Operands[1].AsmOperand, 1);
  EXPECT_EQ(I.Operands[2].AsmOperand, 2);
}

TEST(PtxParse, NoSpaceBeforeOperands) {
  Program P = parse("st.shared.u32[%0],%1;ld.shared.v2.u32{%0,%1},[%2];"
                    "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16{%0, "
                    "%1}, %2, %3, p, 1, 1, 0, 0;");
  EXPECT_EQ(opcodes(P),
            (Strings{"st.shared.u32", "ld.shared.v2.u32",
                     "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16"}));
  EXPECT_EQ(texts(P.Instructions[0]), (Strings{"[%0]", "%1"}));
  EXPECT_EQ(texts(P.Instructions[1]), (Strings{"{%0,%1}", "[%2]"}));
  EXPECT_EQ(P.Instructions[2].Operands.size(), 8u);
}

TEST(PtxParse, OddWhitespace) {
  const char *Asm = "\r\n\t  {\r\n\t\tbar.sync\t0 ;\r\n\v\f"
                    "   st.shared.u32 \t [%0] \t,\r\n %1\t;\r\n}\r\n";
  Program P = parse(Asm);
  EXPECT_EQ(opcodes(P), (Strings{"bar.sync", "st.shared.u32"}));
  EXPECT_EQ(texts(P.Instructions[0]), (Strings{"0"}));
  EXPECT_EQ(texts(P.Instructions[1]), (Strings{"[%0]", "%1"}));
  EXPECT_EQ(P.Instructions[0].Offset, llvm::StringRef(Asm).find("bar"));
  EXPECT_EQ(P.Instructions[1].Offset, llvm::StringRef(Asm).find("st."));
}

TEST(PtxParse, EmptyOperandsKeepPositions) {
  Instruction I = parse("foo a,, b,;").Instructions.at(0);
  EXPECT_EQ(texts(I), (Strings{"a", "", "b", ""}));
}

TEST(PtxParse, OffsetsAreByteOffsetsIntoTheOriginalText) {
  const char *Asm = "{\n\t.reg .pred p; // c;\n\t/* x */ @p bar.sync 0;\n"
                    "L: tcgen05.commit.cta_group::1.mbarrier::arrive::one."
                    "shared::cluster.b64 [%0];\n}";
  Program P = parse(Asm);
  ASSERT_EQ(P.Instructions.size(), 2u);
  llvm::StringRef Text(Asm);
  EXPECT_EQ(P.Instructions[0].Offset, Text.find("@p"));
  EXPECT_EQ(P.Instructions[1].Offset, Text.find("tcgen05"));
}

TEST(PtxParse, UnbalancedBracketsAreContainedToOneInstruction) {
  Program P = parse("st.shared.u32 [%0, %1; bar.sync 0; ld.shared.u32 %0, "
                    "{%1;\nfence.proxy.async;");
  EXPECT_EQ(opcodes(P), (Strings{"st.shared.u32", "bar.sync", "ld.shared.u32",
                                 "fence.proxy.async"}));
  EXPECT_EQ(texts(P.Instructions[0]), (Strings{"[%0, %1"}));
}

TEST(PtxParse, StrayClosersAndPunctuation) {
  Program P = parse("]]] ))) bar.sync 0; , , ; [x]; } } } fence.proxy.async;");
  // Whatever the garbage becomes, the real instructions survive.
  std::vector<std::string> Ops = opcodes(P);
  EXPECT_NE(std::find(Ops.begin(), Ops.end(), "fence.proxy.async"), Ops.end());
  for (const Instruction &I : P.Instructions)
    EXPECT_FALSE(I.Opcode.empty());
}

/// Checks invariants every parse must keep, whatever the input.
void checkWellFormed(llvm::StringRef Text, const Program &P) {
  unsigned Last = 0;
  for (const Instruction &I : P.Instructions) {
    EXPECT_FALSE(I.Opcode.empty());
    EXPECT_FALSE(I.Parts.empty());
    EXPECT_LT(I.Offset, Text.size());
    EXPECT_GE(I.Offset, Last);
    Last = I.Offset;
    for (const Effect &E : classify(I)) {
      EXPECT_LT(E.MemOperand, static_cast<int>(I.Operands.size()));
      EXPECT_LT(E.MbarrierOperand, static_cast<int>(I.Operands.size()));
    }
  }
}

TEST(PtxParse, GarbageDoesNotCrash) {
  const char *Inputs[] = {
      "{{{{",
      "}}}}",
      "[[[[",
      "]]]]",
      "((((",
      "@",
      "@@@@",
      "@!",
      ":::",
      ":",
      "a:",
      "%",
      "%%",
      "%%%",
      "%[",
      "%[abc",
      "%[]",
      "%]",
      "/*",
      "//",
      "/",
      "*/",
      "{ /* ",
      ".",
      "..",
      ".reg",
      "st.",
      ".st",
      "@p",
      "@p {",
      "st.shared.u32 [",
      "st.shared.u32 {",
      "bar.sync ,,,,",
      "\x01\x02\xff\xfe",
      "\0x",
      "L%=:",
      ";;;;;;{;};;;",
      "@@p bar.sync 0;",
      "x: y: z:",
      "{[}]",
      "[{]}",
      "%1%2%3",
      "cp.async.bulk.tensor",
      "cp.reduce",
      "cp.async.bulk.",
      "wgmma.mma_async",
      "tcgen05.mma",
      "tcgen05.cp",
      "tcgen05.commit",
      "mbarrier",
      "bar",
      "bar.",
      "barrier.cluster",
      "bar.red",
      "fence",
      "fence.proxy",
      "membar.proxy",
      "clusterlaunchcontrol.try_cancel",
      "bar.warp",
      "fence.proxy.async::generic",
  };
  for (const char *S : Inputs) {
    Program P = parse(S, Strings{"abc", ""});
    checkWellFormed(S, P);
  }
}

TEST(PtxParse, RandomInputsKeepInvariants) {
  // PTX-flavoured alphabet so that random text reaches every parser path.
  const std::string Alphabet = "{}[](),;:.@!%%/*\n\t\r 0123abpLsx_=$\"-+";
  const char *Words[] = {"st.shared.u32",
                         "bar.sync",
                         "cp.async.bulk.tensor.2d",
                         ".global.shared::cta",
                         "mbarrier.arrive",
                         ".reg",
                         "wgmma.mma_async",
                         "tcgen05.mma",
                         "%[abc]",
                         "%%",
                         "//",
                         "/*",
                         "*/",
                         "fence.proxy.async",
                         "LAB:",
                         "@p"};
  std::mt19937 Rng(12345);
  for (int Round = 0; Round < 3000; ++Round) {
    std::string S;
    size_t Len = Rng() % 120;
    while (S.size() < Len) {
      if (Rng() % 4 == 0)
        S += Words[Rng() % (sizeof(Words) / sizeof(Words[0]))];
      else
        S += Alphabet[Rng() % Alphabet.size()];
    }
    checkWellFormed(S, parse(S, Strings{"abc"}));
  }
}

TEST(PtxParse, HugeInputsParseInLinearTime) {
  std::string Many;
  for (int K = 0; K < 20000; ++K)
    Many += "st.shared.v4.f32 [%0+" + std::to_string(K) +
            "], {%1, %2, %3, %4};\n\t";
  EXPECT_EQ(parse(Many).Instructions.size(), 20000u);

  // Inputs that would be quadratic for a naive scanner.
  auto Start = std::chrono::steady_clock::now();
  for (const std::string &S :
       {std::string(400000, '['), std::string(400000, '{'),
        std::string(400000, '@'), std::string(400000, ':'),
        std::string(400000, 'a'), std::string(400000, ','),
        std::string(400000, '%'), std::string(400000, '.')}) {
    checkWellFormed(S, parse(S));
  }
  std::string Named = "foo ";
  for (int K = 0; K < 100000; ++K)
    Named += "%[x";
  checkWellFormed(Named, parse(Named, Strings{"x"}));
  std::string Comments;
  for (int K = 0; K < 100000; ++K)
    Comments += "/*/";
  checkWellFormed(Comments, parse(Comments));
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  EXPECT_LT(Seconds, 10.0);
}

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

TEST(PtxClassify, GenericWrites) {
  checkTable({
      {"st.shared.u32 [%0], %1;", "GenericWrite m0"},
      {"st.shared.v4.f32 [%0], {%1, %2, %3, %4};", "GenericWrite m0"},
      {"st.shared::cta.v2.b64 [%0], {%1, %2};", "GenericWrite m0"},
      {"st.shared::cta.b128 [%0], %1;", "GenericWrite m0"},
      {"st.shared::cluster.u32 [%0], %1;", "GenericWrite m0 cross"},
      {"st.volatile.shared.u32 [%0], %1;", "GenericWrite m0"},
      {"st.relaxed.cta.shared::cta.b32 [%0], %1;", "GenericWrite m0"},
      {"st.release.cluster.shared::cluster.b32 [%0], %1;",
       "GenericWrite m0 cross"},
      {"st.weak.shared.L1::no_allocate.b32 [%0], %1;", "GenericWrite m0"},
      // Plain st: the address is generic, the analysis must resolve it.
      {"st.u32 [%0], %1;", "GenericWrite m0 generic"},
      {"st.v4.f32 [%0], {%1, %2, %3, %4};", "GenericWrite m0 generic"},
      {"st.volatile.b32 [%0], %1;", "GenericWrite m0 generic"},
      {"st.cg.v4.u32 [%0], {%1, %2, %3, %4};", "GenericWrite m0 generic"},
      {"st.release.gpu.u32 [%0], %1;", "GenericWrite m0 generic"},
      // CuTe SM90_U32x4_STSM_N and friends.
      {"stmatrix.sync.aligned.x4.m8n8.shared.b16 [%0], {%1, %2, %3, %4};\n",
       "GenericWrite m0"},
      {"stmatrix.sync.aligned.x2.trans.m8n8.shared.b16 [%0], {%1, %2};\n",
       "GenericWrite m0"},
      {"stmatrix.sync.aligned.m16n8.x1.trans.shared::cta.b8 [%0], {%1};",
       "GenericWrite m0"},
      {"stmatrix.sync.aligned.x1.m8n8.b16 [%0], {%1};", "GenericWrite m0"},
      // atom: operand 0 is the destination register.
      {"atom.shared.add.u32 %0, [%1], %2;", "GenericWrite m1"},
      {"atom.shared::cta.cas.b32 %0, [%1], %2, %3;", "GenericWrite m1"},
      {"atom.relaxed.cluster.shared::cluster.add.u32 %0, [%1], %2;",
       "GenericWrite m1 cross"},
      {"atom.add.release.gpu.u32 %0,[%1],%2;", "GenericWrite m1 generic"},
      {"red.shared.add.u32 [%0], %1;", "GenericWrite m0"},
      {"red.relaxed.cta.shared::cta.add.u32 [%0], %1;", "GenericWrite m0"},
      {"red.add.u32 [%0], %1;", "GenericWrite m0 generic"},
      // CCCL cuda::ptx::st_bulk: zero-fills shared memory.
      {"st.bulk.weak.shared::cta [%0], %1, %2;", "GenericWrite m0"},
  });
}

TEST(PtxClassify, GenericWritesToOtherSpacesAreIgnored) {
  checkTable({
      {"st.global.u32 [%0], %1;", ""},
      {"st.global.L1::no_allocate.L2::cache_hint.b64 [%0], %1, %2;", ""},
      {"st.local.u32 [%0], %1;", ""},
      {"st.param.b32 [param0], %1;", ""},
      {"st.param::func.b32 [param0], %1;", ""},
      {"st.release.sys.global.u32 [%0], %1;", ""},
      {"st.global.shared.u32 [%0], %1;", ""}, // Not PTX; first space wins.
      // Into another CTA's smem: only its mbarrier matters (a remote use).
      {"st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 "
       "[%0], {%1, %2, %3, %4}, [%5];",
       "MbarrierComplete mb2 cross"},
      {"st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, "
       "[%2];",
       "MbarrierComplete mb2 cross"},
      {"red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::"
       "bytes.add.u32 [%0], %1, [%2];",
       "MbarrierComplete mb2 cross"},
      {"red.global.add.u32 [%0], %1;", ""},
      {"red.release.gpu.global.add.u32 [%0], %1;", ""},
      {"atom.global.cas.b32 %0, [%1], %2, %3;", ""},
      {"multimem.st.relaxed.gpu.global.b32 [%0], %1;", ""},
      {"multimem.red.release.sys.global.add.u32 [%0], %1;", ""},
      {"sts.u32 [%0], %1;", ""},
      {"store.shared.u32 [%0], %1;", ""},
  });
}

TEST(PtxClassify, GenericReads) {
  checkTable({
      {"ld.shared.u32 %0, [%1];", "GenericRead m1"},
      {"ld.shared::cta.v4.u32 {%0, %1, %2, %3}, [%4];", "GenericRead m1"},
      {"ld.shared::cluster.u32 %0, [%1];", "GenericRead m1 cross"},
      {"ld.volatile.shared.u32 %0, [%1];", "GenericRead m1"},
      {"ld.acquire.cta.shared::cta.b32 %0, [%1];", "GenericRead m1"},
      {"ld.shared.b128 %0, [%1];", "GenericRead m1"},
      {"ld.u32 %0, [%1];", "GenericRead m1 generic"},
      {"ld.volatile.b64 %0, [%1];", "GenericRead m1 generic"},
      {"ld.relaxed.gpu.u32 %0, [%1];", "GenericRead m1 generic"},
      // CuTe SM75_U32x4_LDSM_N.
      {"ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n",
       "GenericRead m1"},
      {"ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 {%0, %1}, [%2];",
       "GenericRead m1"},
      {"ldmatrix.sync.aligned.x1.m8n8.b16 {%0}, [%1];", "GenericRead m1"},
  });
}

TEST(PtxClassify, GenericReadsFromOtherSpacesAreIgnored) {
  checkTable({
      {"ld.global.u32 %0, [%1];", ""},
      {"ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];", ""},
      {"ld.param.u32 %0, [param0];", ""},
      {"ld.param::entry.u32 %0, [param0];", ""},
      {"ld.const.u32 %0, [%1];", ""},
      {"ld.local.u32 %0, [%1];", ""},
      {"ld.acquire.gpu.global.b32 %0, [%1];", ""},
      {"ldu.global.u32 %0, [%1];", ""},
      {"multimem.ld_reduce.relaxed.gpu.global.add.u32 %0, [%1];", ""},
      {"movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;", ""},
      {"cvta.to.shared.u64 %0, %1;", ""},
  });
}

TEST(PtxClassify, BulkAndTensorStores) {
  checkTable({
      // CuTe SM90_BULK_COPY_S2G / CCCL cp_async_bulk.
      {"cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n",
       "AsyncRead.BulkStore m1"},
      {"cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], "
       "[%1], %2, %3;",
       "AsyncRead.BulkStore m1"},
      {"cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%0], [%1], %2, "
       "%3;",
       "AsyncRead.BulkStore m1"},
      // CuTe SM90_TMA_STORE_*D / ThunderKittens tma::store_async.
      {"cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], "
       "[%1];",
       "AsyncRead.TensorStore m1"},
      {"cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], "
       "[%1];",
       "AsyncRead.TensorStore m1"},
      {"cp.async.bulk.tensor.3d.global.shared::cta.bulk_group.L2::cache_hint "
       "[%0, {%2, %3, %4}], [%1], %5;",
       "AsyncRead.TensorStore m1"},
      {"cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%0, {%2, "
       "%3, %4, %5, %6}], [%1];",
       "AsyncRead.TensorStore m1"},
      {"cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group "
       "[%0, {%1, %2, %3}], [%4];",
       "AsyncRead.TensorStore m1"},
      {"cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group "
       "[%0, {%1, %2, %3, %4, %5}], [%6];",
       "AsyncRead.TensorStore m1"},
      // CuTe SM90_TMA_REDUCE_ADD / CCCL cp_reduce_async_bulk(_tensor).
      {"cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group [%0, "
       "{%2, %3}], [%1];",
       "AsyncRead.ReduceStore m1"},
      {"cp.reduce.async.bulk.tensor.1d.global.shared::cta.min.tile."
       "bulk_group [%0, {%1}], [%2];",
       "AsyncRead.ReduceStore m1"},
      {"cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u64 [%0], "
       "[%1], %2;",
       "AsyncRead.ReduceStore m1"},
      {"cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16 "
       "[%0], [%1], %2;",
       "AsyncRead.ReduceStore m1"},
  });
}

TEST(PtxClassify, BulkAndTensorLoads) {
  checkTable({
      // CuTe SM90_BULK_COPY_G2S / CCCL cp_async_bulk.
      {"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
       "[%0], [%1], %2, [%3];\n",
       "AsyncWrite.BulkLoad m0 mb3"},
      {"cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], "
       "[%1], %2, [%3];",
       "AsyncWrite.BulkLoad m0 mb3"},
      {"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes."
       "multicast::cluster [%0], [%1], %2, [%3], %4;",
       "AsyncWrite.BulkLoad m0 mb3 cross"},
      {"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes."
       "multicast::cluster.L2::cache_hint [%0], [%1], %2, [%3], %4, %5;",
       "AsyncWrite.BulkLoad m0 mb3 cross"},
      // The mbarrier is found by position, after two extra operands.
      {"cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes."
       "ignore_oob [%0], [%1], %2, %3, %4, [%5];",
       "AsyncWrite.BulkLoad m0 mb5"},
      // CuTe SM90_TMA_LOAD_2D / ThunderKittens tma::load_async.
      {"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::"
       "bytes [%0], [%1, {%3, %4}], [%2];",
       "AsyncWrite.TensorLoad m0 mb2"},
      {"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::"
       "bytes.L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5;",
       "AsyncWrite.TensorLoad m0 mb2"},
      {"cp.async.bulk.tensor.5d.shared::cta.global.tile.mbarrier::complete_tx::"
       "bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];",
       "AsyncWrite.TensorLoad m0 mb2"},
      {"cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::"
       "complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8};",
       "AsyncWrite.TensorLoad m0 mb2"},
      {"cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::"
       "complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];",
       "AsyncWrite.TensorLoad m0 mb2"},
      // Multicast writes other CTAs' shared memory and mbarriers.
      {"cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::"
       "complete_tx::bytes.multicast::cluster.L2::cache_hint"
       " [%0], [%1, {%3, %4, %5, %6}], [%2], %7, %8;",
       "AsyncWrite.TensorLoad m0 mb2 cross"},
      // CuTe SM100_TMA_2SM_LOAD: cta_group::2 may signal the peer's mbarrier.
      {"cp.async.bulk.tensor.1d.cta_group::2.shared::cluster.global.mbarrier::"
       "complete_tx::bytes.L2::cache_hint [%0], [%1, {%3}], [%2], %4;",
       "AsyncWrite.TensorLoad m0 mb2 cross"},
  });
}

TEST(PtxClassify, SharedToSharedCopiesReadHereAndWriteThere) {
  checkTable({
      {"cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes "
       "[%0], [%1], %2, [%3];",
       "AsyncWrite.BulkLoad m0 mb3 cross; AsyncRead.BulkStore m1"},
      {"cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx"
       "::bytes.add.u64 [%0], [%1], %2, [%3];",
       "AsyncWrite.ReduceStore m0 mb3 cross; AsyncRead.ReduceStore m1"},
  });
}

TEST(PtxClassify, OtherCopiesAreIgnored) {
  checkTable({
      {"cp.async.bulk.prefetch.L2.global [%0], %1;", ""},
      {"cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];", ""},
      {"cp.async.bulk.commit_group;", ""},
      {"cp.async.bulk.wait_group.read %0;", ""},
      {"cp.async.bulk.wait_group 0;", ""},
      // Ampere cp.async is not a bulk (async-proxy) copy.
      {"cp.async.cg.shared.global [%0], [%1], 16;", ""},
      {"cp.async.ca.shared::cta.global.L2::128B [%0], [%1], 4, %2;", ""},
      {"cp.async.commit_group;", ""},
      {"cp.async.wait_group 1;", ""},
      {"cp.async.bulk.global.global [%0], [%1], %2;", ""},
      {"cp.async.bulk.tensor", ""},
      {"cp.async.bulkx.global.shared::cta.bulk_group [%0], [%1], %2;", ""},
      {"cp.reduce.bulk.global.shared::cta.add.u32 [%0], [%1], %2;", ""},
  });
}

TEST(PtxClassify, Wgmma) {
  // CuTe SM90_64x8x16_F16F16F16_SS.
  EXPECT_EQ(effects("{\n"
                    ".reg .pred p;\n"
                    "setp.ne.b32 p, %4, 0;\n"
                    "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 "
                    "{%0, %1},"
                    " %2,"
                    " %3,"
                    " p,   %5, %6, %7, %8;\n"
                    "}\n"),
            "AsyncRead.Wgmma m1; AsyncRead.Wgmma m2");
  // CuTe SM90_64x8x16_F16F16F16_RS: A comes from registers.
  EXPECT_EQ(effects("{\n"
                    ".reg .pred p;\n"
                    "setp.ne.b32 p, %7, 0;\n"
                    "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 "
                    "{%0, %1},"
                    "{%2, %3, %4, %5},"
                    " %6,"
                    " p,   %8, %9, %10;\n"
                    "}\n"),
            "AsyncRead.Wgmma m2");
  checkTable({
      {"wgmma.mma_async.sp.sync.aligned.m64n8k32.f16.f16.f16 {%0, %1}, %2, "
       "%3, %4, 0, 1, %7, %8, %9, %10;",
       "AsyncRead.Wgmma m1; AsyncRead.Wgmma m2"},
      {"wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8.satfinite {%0, %1, "
       "%2, %3, %4, %5, %6, %7}, %8, %9, p;",
       "AsyncRead.Wgmma m1; AsyncRead.Wgmma m2"},
      {"wgmma.fence.sync.aligned;\n", "RegisterFence"},
      {"wgmma.commit_group.sync.aligned;\n", ""},
      {"wgmma.wait_group.sync.aligned %0;\n", ""},
      {"wgmma.mma_asyncx {%0}, %1, %2;", ""},
      {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3},"
       " {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};",
       ""},
  });
}

TEST(PtxClassify, Tcgen05Mma) {
  checkTable({
      // CuTe SM100_MMA_F16BF16_SS: A and B both from shared memory.
      {"{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
       "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p; \n\t}\n",
       "AsyncRead.Tcgen05Mma m1; AsyncRead.Tcgen05Mma m2; TmemAccess.Tcgen05Mma"},
      // CuTe SM100_MMA_F16BF16_TS: A from tensor memory.
      {"{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
       "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p; \n\t}\n",
       "AsyncRead.Tcgen05Mma m2; TmemAccess.Tcgen05Mma"},
      // The pair reads operands in both CTAs.
      {"tcgen05.mma.cta_group::2.kind::tf32 [%0], %1, %2, %3, {%4, %5, %6, "
       "%7, %8, %9, %10, %11}, PRED_enable_input_d, %13;",
       "AsyncRead.Tcgen05Mma m1 cross; AsyncRead.Tcgen05Mma m2 cross; TmemAccess.Tcgen05Mma cross"},
      {"tcgen05.mma.cta_group::2.kind::i8 [%0], [%1], %2, %3, p;",
       "AsyncRead.Tcgen05Mma m2 cross; TmemAccess.Tcgen05Mma cross"},
      {"tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill [%0], %1, "
       "%2, %3, PRED_enable_input_d, %5;",
       "AsyncRead.Tcgen05Mma m1; AsyncRead.Tcgen05Mma m2; TmemAccess.Tcgen05Mma"},
      {"tcgen05.mma.ws.cta_group::1.kind::i8.collector::b1::use [%0], [%1], "
       "%2, %3, PRED_enable_input_d;",
       "AsyncRead.Tcgen05Mma m2; TmemAccess.Tcgen05Mma"},
      // .sp keeps A and B at operands 1 and 2; the metadata is in TMEM.
      {"tcgen05.mma.sp.cta_group::1.kind::f16 [%0], %1, %2, [%3], %4, p;",
       "AsyncRead.Tcgen05Mma m1; AsyncRead.Tcgen05Mma m2; TmemAccess.Tcgen05Mma"},
      {"tcgen05.mma.sp.cta_group::2.kind::f8f6f4 [%0], [%1], %2, [%3], %4, "
       "p;",
       "AsyncRead.Tcgen05Mma m2 cross; TmemAccess.Tcgen05Mma cross"},
      {"tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X "
       "[%0], %1, %2, %3, [%4], [%5], PRED_enable_input_d;",
       "AsyncRead.Tcgen05Mma m1; AsyncRead.Tcgen05Mma m2; TmemAccess.Tcgen05Mma"},
  });
}

TEST(PtxClassify, Tcgen05Others) {
  checkTable({
      // CuTe SM100_UTCCP_128x256b_1cta.
      {"tcgen05.cp.cta_group::1.128x256b [%0], %1;", "AsyncRead.Tcgen05Cp m1; TmemAccess.Tcgen05Cp"},
      {"tcgen05.cp.cta_group::2.64x128b.warpx2::02_13.b8x16.b6x16_p32 [%0], "
       "%1;",
       "AsyncRead.Tcgen05Cp m1; TmemAccess.Tcgen05Cp cross"},
      // CUTLASS umma_arrive*.
      {"tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 "
       "[%0];",
       "MbarrierArrive m0 mb0; TmemCommit"},
      {"tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 "
       "[%0];",
       "MbarrierArrive m0 mb0 cross; TmemCommit cross"},
      {"{\n\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster"
       ".multicast::cluster.b64 [%0], %1; \n\t}",
       "MbarrierArrive m0 mb0 cross; TmemCommit cross"},
      {"tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%0];",
       "MbarrierArrive m0 mb0; TmemCommit"},
      {"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;", ""},
      {"tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;", "TmemDealloc"},
      {"tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", ""},
      {"tcgen05.ld.sync.aligned.32x32b.x4.b32 {%0, %1, %2, %3}, [%4];", "TmemAccess.Tcgen05Ld"},
      {"tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};", "TmemAccess.Tcgen05St"},
      {"tcgen05.wait::ld.sync.aligned;", "TmemWaitLd"},
      {"tcgen05.fence::before_thread_sync;", "TmemFenceBefore"},
      {"tcgen05.fence::after_thread_sync;", "TmemFenceAfter"},
      {"tcgen05.shift.cta_group::1.down [%0];", "TmemAccess.Tcgen05Shift"},
      {"tcgen05.mmax [%0], %1, %2;", ""},
  });
}

TEST(PtxClassify, ProxyFences) {
  checkTable({
      {"fence.proxy.async;", "ProxyFence all"},
      {"fence.proxy.async.shared::cta;", "ProxyFence shared::cta"},
      {"fence.proxy.async.shared::cluster;", "ProxyFence shared::cluster"},
      {"fence.proxy.async.global;", "ProxyFence global"},
      // CUTLASS fence_view_async_shared.
      {"{\n\tfence.proxy.async.shared::cta; \n}", "ProxyFence shared::cta"},
      // The one-way generic->async fences (CCCL, PTX ISA 8.6).
      {"fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;",
       "ProxyFence shared::cta"},
      {"fence.proxy.async::generic.acquire.sync_restrict::shared::cluster."
       "cluster;",
       "ProxyFence shared::cluster"},
      // Old-style spelling of the same fence.
      {"membar.proxy.async.shared::cta;", "ProxyFence shared::cta"},
      // Not proxy fences between the generic and async proxies.
      {"fence.proxy.alias;", ""},
      // The tensormap proxy's own fences (proxyfence-tensormap).
      {"fence.proxy.tensormap::generic.release.gpu;", "TensormapRelease"},
      {"fence.proxy.tensormap::generic.acquire.gpu [%0], 128;", "TensormapAcquire"},
      {"fence.acq_rel.cta;", ""},
      {"fence.sc.cluster;", ""},
      {"fence.acquire.sync_restrict::shared::cluster.cluster;", ""},
      {"membar.gl;", ""},
      {"membar.cta;", ""},
      {"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release"
       ".gpu.sync.aligned [%0], [%1], %2;",
       "TensormapWrite; TensormapRelease"},
      // Strict about spellings.
      {"fence.proxy.asyncx;", ""},
      {"fence.proxy.async.shared;", ""},
      {"fence.proxy.async.shared::cta.extra;", ""},
      {"fence.proxy.async::generic.release.cluster;", ""},
      {"fence.proxy;", ""},
  });
}

TEST(PtxClassify, InitFence) {
  checkTable({
      {"fence.mbarrier_init.release.cluster;", "InitFence"},
      // CUTLASS fence_barrier_init.
      {"{\n\tfence.mbarrier_init.release.cluster; \n}", "InitFence"},
  });
}

TEST(PtxClassify, CtaAndNamedBarriers) {
  checkTable({
      {"bar.sync 0;", "Barrier cta"},
      {"barrier.sync 0;", "Barrier cta"},
      {"barrier.sync.aligned 0;", "Barrier cta"},
      {"bar.cta.sync 0;", "Barrier cta"},
      {"barrier.cta.sync.aligned 0;", "Barrier cta"},
      // A thread count makes it named; without one every thread of the
      // CTA takes part, whatever the id (ThunderKittens' everyone::sync).
      {"bar.sync 0, 256;", "Barrier named"},
      {"bar.sync 1;", "Barrier cta"},
      {"bar.sync 1, 128;", "Barrier named"},
      // CUTLASS NamedBarrier / ThunderKittens named barriers.
      {"bar.sync %0, %1;", "Barrier named"},
      {"barrier.sync %0, %1;", "Barrier named"},
      {"bar.sync %0;", "Barrier cta"},
      {"bar.arrive %0, %1;", "Barrier named arrive"},
      {"barrier.arrive %0, %1;", "Barrier named arrive"},
      {"barrier.cta.arrive.aligned 1, 64;", "Barrier named arrive"},
      {"bar.arrive 0, 64;", "Barrier named arrive"},
      // bar.red: operand 0 is the destination, then id, count, predicate.
      {"bar.red.popc.u32 %0, 0, %1;", "Barrier cta"},
      {"bar.red.and.pred p, 0, 128, q;", "Barrier named"},
      {"barrier.red.or.pred p, 2, !q;", "Barrier cta"},
      {"barrier.cta.red.popc.aligned.u32 %0, 0, p;", "Barrier cta"},
      {"bar.warp.sync %0;", "Barrier warp"},
      {"bar.warp.sync 0xffffffff;", "Barrier warp"},
  });
}

TEST(PtxClassify, NotBarriers) {
  checkTable({
      {"bar;", ""},
      {"bar.cta;", ""},
      {"bar.wait 0;", ""},
      {"bar.warp.arrive %0;", ""},
      {"bars.sync 0;", ""},
      {"barrierx.sync 0;", ""},
      {"bar.cluster.arrive;", ""},
      {"barrier.cluster.sync;", ""},
      {"barrier.cluster;", ""},
      {"elect.sync %0|p, %1;", ""},
      {"activemask.b32 %0;", ""},
  });
}

TEST(PtxClassify, ClusterBarriers) {
  checkTable({
      {"barrier.cluster.arrive;", "ClusterArrive cluster arrive"},
      {"barrier.cluster.arrive.aligned;\n", "ClusterArrive cluster arrive"},
      {"barrier.cluster.arrive.release.aligned;",
       "ClusterArrive cluster arrive"},
      // CuTe cluster_arrive_relaxed: does not order the init before it.
      {"barrier.cluster.arrive.relaxed.aligned;\n",
       "ClusterArrive cluster arrive relaxed"},
      {"barrier.cluster.arrive.relaxed;",
       "ClusterArrive cluster arrive relaxed"},
      {"barrier.cluster.wait;", "ClusterWait cluster"},
      {"barrier.cluster.wait.aligned;\n", "ClusterWait cluster"},
      {"barrier.cluster.wait.acquire.aligned;", "ClusterWait cluster"},
      // CCCL clusterlaunchcontrol helper: release fence, then the barrier.
      {"{\n\tfence.proxy.async::generic.release.sync_restrict::shared::cta."
       "cluster;\n\tbarrier.cluster.arrive.relaxed;\n\t"
       "barrier.cluster.wait.relaxed;\n\t}",
       "ProxyFence shared::cta; ClusterArrive cluster arrive relaxed; "
       "ClusterWait cluster relaxed"},
  });
}

TEST(PtxClassify, Mbarriers) {
  checkTable({
      // CUTLASS ClusterBarrier::init / ThunderKittens init_semaphore.
      {"{\n\tmbarrier.init.shared::cta.b64 [%1], %0; \n}",
       "MbarrierInit m0 mb0"},
      {"mbarrier.init.shared.b64 [%0], %1;", "MbarrierInit m0 mb0"},
      {"mbarrier.init.b64 [%0], %1;", "MbarrierInit m0 mb0"},
      // Arrive with a state destination, or with the `_` sink.
      {"mbarrier.arrive.shared.b64 %0, [%1];", "MbarrierArrive m1 mb1"},
      {"{\n\tmbarrier.arrive.shared::cta.b64 _, [%0];\n\t}",
       "MbarrierArrive m1 mb1"},
      {"mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1], %2;",
       "MbarrierArrive m1 mb1"},
      {"mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0], %1;",
       "MbarrierArrive m1 mb1 cross"},
      {"mbarrier.arrive.noComplete.shared.b64 %0, [%1], %2;",
       "MbarrierArrive m1 mb1"},
      {"mbarrier.arrive_drop.shared.b64 %0, [%1];", "MbarrierArrive m1 mb1"},
      {"mbarrier.arrive_drop.release.cluster.shared::cluster.b64 _, [%0];",
       "MbarrierArrive m1 mb1 cross"},
      {"{\n\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [%1], %0; \n\t}",
       "MbarrierArrive m1 mb1"},
      {"mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;",
       "MbarrierArrive m0 mb0"},
      {"mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%0], %1;",
       "MbarrierArrive m0 mb0 cross"},
      // CUTLASS ClusterTransactionBarrier::complete_transaction.
      {"{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %2, 1;\n\t@p mbarrier.complete_tx"
       ".shared::cluster.relaxed.cluster.b64   [%1], %0;}",
       "MbarrierArrive m0 mb0 cross"},
      // Ampere-style cp.async completion.
      {"cp.async.mbarrier.arrive.shared.b64 [%0];", "MbarrierArrive m0 mb0"},
      {"{\n\tcp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n\t}",
       "MbarrierArrive m0 mb0"},
      // Waits.
      {"mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;",
       "MbarrierWait m1 mb1"},
      {"mbarrier.try_wait.acquire.cluster.shared::cta.b64 %0, [%1], %2, %3;",
       "MbarrierWait m1 mb1"},
      {"mbarrier.test_wait.parity.shared::cta.b64 P1, [%1], %2;",
       "MbarrierWait m1 mb1"},
      {"mbarrier.test_wait.shared.b64 %0, [%1], %2;", "MbarrierWait m1 mb1"},
      // Neither arrive nor wait.
      {"mbarrier.inval.shared::cta.b64 [%0];", ""},
      {"mbarrier.pending_count.b64 %0, %1;", ""},
      {"mbarrier.initx.shared.b64 [%0], %1;", ""},
      {"mbarrier;", ""},
  });
}

TEST(PtxClassify, RemoteMbarrierArrive) {
  // CUTLASS ClusterBarrier::arrive(cta_id): the address is mapa's result.
  const char *Asm = "{\n\t"
                    ".reg .b32 remAddr32;\n\t"
                    "mapa.shared::cluster.u32  remAddr32, %0, %1;\n\t"
                    "mbarrier.arrive.shared::cluster.b64  _, [remAddr32];\n\t"
                    "}";
  EXPECT_EQ(effects(Asm), "MbarrierArrive m1 mb1 cross");
  Program P = parse(Asm);
  ASSERT_EQ(P.Instructions.size(), 2u);
  EXPECT_EQ(P.Instructions[1].Operands[1].AsmOperand, -1);
}

TEST(PtxClassify, TryCancel) {
  checkTable({
      {"clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::"
       "complete_tx::bytes.b128 [%0], [%1];",
       "AsyncWrite.TryCancel m0 mb1"},
      {"clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::"
       "complete_tx::bytes.multicast::cluster::all.b128 [%0], [%1];",
       "AsyncWrite.TryCancel m0 mb1 cross"},
      {"clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, %0;", ""},
  });
}

TEST(PtxClassify, UnrelatedInstructions) {
  checkTable({
      {"mov.u32 %0, %%laneid;", ""},
      {"setp.ne.b32 p, %0, 0;", ""},
      {"selp.b32 %0, 1, 0, P1;", ""},
      {"elect.sync _|P, %1;", ""},
      {"mapa.shared::cluster.u32 %0, %1, %2;", ""},
      {"getctarank.shared::cluster.u32 %0, %1;", ""},
      {"bra.uni LAB_WAIT;", ""},
      {"brkpt;", ""},
      {"trap;", ""},
      {"prefetch.tensormap [%0];", ""},
      // A tensor-map write (proxyfence-tensormap), no proxy effect otherwise;
      // a map in shared memory names its address (TMA never reads it there).
      {"tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;",
       "TensormapWrite m0"},
      {"tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;",
       "TensormapWrite"},
      {"griddepcontrol.wait;", ""},
      {"nanosleep.u32 %0;", ""},
      {"setmaxnreg.inc.sync.aligned.u32 240;", ""},
  });
}

TEST(PtxClassify, PrefixesAreComparedExactly) {
  checkTable({
      {"stx.shared.u32 [%0], %1;", ""},
      {"ldx.shared.u32 %0, [%1];", ""},
      {"stmatrixx.sync.aligned.x1.m8n8.shared.b16 [%0], {%1};", ""},
      {"ldmatrix2.sync.aligned.x1.m8n8.shared.b16 {%0}, [%1];", ""},
      {"atomic.shared.add.u32 %0, [%1], %2;", ""},
      {"reduce.shared.add.u32 [%0], %1;", ""},
      {"mbarriers.arrive.shared.b64 %0, [%1];", ""},
      {"cpx.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;", ""},
      {"wgmmax.fence.sync.aligned;", ""},
      {"fencex.proxy.async;", ""},
      {"Fence.proxy.async;", ""},
  });
}

TEST(PtxClassify, EmptyOrHandBuiltInstructions) {
  Instruction Empty;
  EXPECT_TRUE(classify(Empty).empty());
  Instruction NoOperands;
  NoOperands.Opcode = "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16";
  NoOperands.Parts = {"wgmma", "mma_async", "sync", "aligned"};
  EXPECT_TRUE(classify(NoOperands).empty());
  // No shared-memory operand, but still an operation on tensor memory.
  NoOperands.Parts = {"tcgen05", "mma"};
  EXPECT_EQ(classify(NoOperands).size(), 1u);
  EXPECT_EQ(classify(NoOperands)[0].Kind, EffectKind::TmemAccess);
  NoOperands.Parts = {"tcgen05", "cp"};
  EXPECT_EQ(classify(NoOperands).size(), 1u);
  EXPECT_EQ(classify(NoOperands)[0].Kind, EffectKind::TmemAccess);
  NoOperands.Parts = {"st", "shared", "u32"};
  EXPECT_EQ(classify(NoOperands).size(), 1u); // A store without an address.
  EXPECT_EQ(classify(NoOperands)[0].MemOperand, -1);
  // Malformed copies keep their kind but point at no operand.
  checkTable({
      {"cp.async.bulk.global.shared::cta.bulk_group;", "AsyncRead.BulkStore"},
      {"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx"
       "::bytes;",
       "AsyncWrite.TensorLoad"},
      {"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx"
       "::bytes [%0];",
       "AsyncWrite.TensorLoad m0"},
      {"clusterlaunchcontrol.try_cancel.async.shared::cta.b128;",
       "AsyncWrite.TryCancel"},
  });
}

TEST(PtxClassify, WholeHelpersFromRealCode) {
  // CUTLASS ClusterBarrier::test_wait: the guarded wait is still a wait.
  EXPECT_EQ(effects("{\n\t"
                    ".reg .pred P1; \n\t"
                    ".reg .pred P2; \n\t"
                    "setp.eq.u32 P2, %3, 1;\n\t"
                    "@P2 mbarrier.test_wait.parity.shared::cta.b64 P1, [%1], "
                    "%2; \n\t"
                    "selp.b32 %0, 1, 0, P1; \n\t"
                    "}"),
            "MbarrierWait m1 mb1");
  // ThunderKittens-style wait loop.
  EXPECT_EQ(effects("{\n"
                    ".reg .pred                P1;\n"
                    "LAB_WAIT:\n"
                    "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
                    "@P1                       bra.uni DONE;\n"
                    "bra.uni                   LAB_WAIT;\n"
                    "DONE:\n"
                    "}\n"),
            "MbarrierWait m1 mb1");
  // A hand-written epilogue: stores, fence, barrier, TMA store.
  EXPECT_EQ(effects("st.shared.v4.f32 [%0], {%2, %3, %4, %5};\n\t"
                    "fence.proxy.async.shared::cta;\n\t"
                    "bar.sync 1, 128;\n\t"
                    "@%%p1 cp.async.bulk.tensor.2d.global.shared::cta."
                    "bulk_group [%1, {%6, %7}], [%0];\n\t"
                    "cp.async.bulk.commit_group;"),
            "GenericWrite m0; ProxyFence shared::cta; Barrier named; "
            "AsyncRead.TensorStore m1");
  // DeepGEMM-style 2-CTA load that signals the peer's barrier.
  EXPECT_EQ(effects("cp.async.bulk.tensor.2d.cta_group::2.shared::cluster."
                    "global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}],"
                    " [%2];"),
            "AsyncWrite.TensorLoad m0 mb2 cross");
}

TEST(PtxClassify, CcclGeneratedHelpers) {
  // A sample of cuda/__ptx/instructions/generated/*.h, verbatim.
  checkTable({
      {"barrier.cluster.arrive;", "ClusterArrive cluster arrive"},
      {"barrier.cluster.arrive.relaxed;",
       "ClusterArrive cluster arrive relaxed"},
      {"barrier.cluster.wait.acquire;", "ClusterWait cluster"},
      {"fence.proxy.async.shared::cluster;", "ProxyFence shared::cluster"},
      {"fence.mbarrier_init.release.cluster;", "InitFence"},
      {"mbarrier.init.shared.b64 [%0], %1;", "MbarrierInit m0 mb0"},
      {"mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, "
       "[%0], %1;",
       "MbarrierArrive m1 mb1 cross"},
      {"{\n\t .reg .pred P_OUT; \n\t"
       "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P_OUT, [%1], "
       "%2, %3;\n\t"
       "selp.b32 %0, 1, 0, P_OUT; \n"
       "}",
       "MbarrierWait m1 mb1"},
      {"cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], "
       "[%1], %2, [%3];",
       "AsyncWrite.BulkLoad m0 mb3"},
      {"cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::"
       "complete_tx::bytes.multicast::cluster.cta_group::2 [%0], [%1, {%2, "
       "%3, %4}], [%5], %6;",
       "AsyncWrite.TensorLoad m0 mb2 cross"},
      {"cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%1}],"
       " [%2];",
       "AsyncRead.TensorStore m1"},
      {"cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group "
       "[%0, {%1, %2, %3}], [%4];",
       "AsyncRead.ReduceStore m1"},
      {"{\n\t .reg .pred PRED_enable_input_d; \n\t"
       "setp.ne.b32 PRED_enable_input_d, %4, 0;\n\t"
       "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], [%1], %2, %3, "
       "PRED_enable_input_d;\n\t"
       "}",
       "AsyncRead.Tcgen05Mma m2; TmemAccess.Tcgen05Mma"},
      {"tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64 [%0], %1;",
       "AsyncRead.Tcgen05Cp m1; TmemAccess.Tcgen05Cp"},
      {"tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster."
       "multicast::cluster.b64 [%0], %1;",
       "MbarrierArrive m0 mb0 cross; TmemCommit cross"},
      {"st.global.L1::evict_last.b32 [%0], %1;", ""},
      {"ld.global.L1::no_allocate.L2::256B.b64 %0, [%1];", ""},
  });
}

} // namespace

TEST(PtxParse, DirectivesLabelsAndScopesAreRecorded) {
  std::string Text = ".loc 1 5 3\n{\n.reg .pred p;\nL: @p bra L;\n"
                     "{ M: bar.sync 0; }\n}\nN: ret;";
  Program P = parse(Text);
  ASSERT_EQ(P.Directives.size(), 2u);
  EXPECT_EQ(P.Directives[0].Text, ".loc 1 5 3");
  EXPECT_EQ(P.Directives[0].Offset, 0u);
  EXPECT_EQ(P.Directives[1].Text, ".reg .pred p");
  EXPECT_EQ(P.Directives[1].Offset, Text.find(".reg"));
  EXPECT_EQ(P.Labels, (Strings{"L", "M", "N"}));
  EXPECT_EQ(P.LabelOffsets,
            (std::vector<unsigned>{unsigned(Text.find("L:")),
                                   unsigned(Text.find("M:")),
                                   unsigned(Text.find("N:"))}));
  // Scope 0 is the text; 1 the outer braces; 2 the inner ones, inside 1.
  EXPECT_EQ(P.ScopeParents, (std::vector<unsigned>{0, 0, 1}));
  EXPECT_EQ(P.LabelScopes, (std::vector<unsigned>{1, 2, 0}));
  ASSERT_EQ(P.Instructions.size(), 3u);
  EXPECT_EQ(P.Instructions[0].Scope, 1u);
  EXPECT_EQ(P.Instructions[1].Scope, 2u);
  EXPECT_EQ(P.Instructions[2].Scope, 0u);
}

TEST(PtxParse, StrayCloserKeepsTheOutermostScope) {
  Program P = parse("} } bar.sync 0; { fence.proxy.async; } } ret;");
  ASSERT_EQ(P.Instructions.size(), 3u);
  EXPECT_EQ(P.Instructions[0].Scope, 0u);
  EXPECT_EQ(P.Instructions[1].Scope, 1u);
  EXPECT_EQ(P.Instructions[2].Scope, 0u);
}
