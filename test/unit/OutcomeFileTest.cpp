//===- OutcomeFileTest.cpp - an analysis result through its file ----------===//
//
// The isolated analysis and the result cache hand results back as text;
// a result must read back as written, and text it did not write must be
// refused rather than read as a partial result.
//
//===----------------------------------------------------------------------===//
#include "driver/OutcomeFile.h"
#include "gtest/gtest.h"

using namespace proxyfence;

namespace {

VerifySite site(VerifySite::KindTy Kind, std::string File, unsigned At,
                bool Fixed) {
  VerifySite S;
  S.Kind = Kind;
  S.Rule = "proxyfence-tma-store";
  S.Group = "proxyfence-tma-store|" + File + ":" + std::to_string(At);
  S.Access = {File, At, At + 10};
  S.AccessOp = {File, At + 1, At + 1};
  S.Async = {"other.cuh", At + 20, At + 40};
  S.AsyncOp = {File, At + 21, At + 21};
  S.Fixed = Fixed;
  return S;
}

void expectSame(const VerifySite &A, const VerifySite &B) {
  EXPECT_EQ(A.Kind, B.Kind);
  EXPECT_EQ(A.Rule, B.Rule);
  EXPECT_EQ(A.Group, B.Group);
  EXPECT_EQ(A.Fixed, B.Fixed);
  const SourceSpan *SA[] = {&A.Access, &A.AccessOp, &A.Async, &A.AsyncOp};
  const SourceSpan *SB[] = {&B.Access, &B.AccessOp, &B.Async, &B.AsyncOp};
  for (int I = 0; I < 4; ++I) {
    EXPECT_EQ(SA[I]->File, SB[I]->File);
    EXPECT_EQ(SA[I]->Begin, SB[I]->Begin);
    EXPECT_EQ(SA[I]->End, SB[I]->End);
  }
}

TEST(OutcomeFile, VerifySitesReadBackAsWritten) {
  FileOutcome O;
  O.R.File = "k.cu";
  O.R.Findings = 3;
  // A Latin-1 path (not UTF-8) and paths the sites share.
  O.R.Sites = {site(VerifySite::Proxy, "k.cu", 100, true),
               site(VerifySite::InitCluster, "caf\xe9.cu", 7, false),
               site(VerifySite::Proxy, "k.cu", 300, false)};
  llvm::Expected<FileOutcome> Back = readOutcome(writeOutcome(O));
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->R.File, "k.cu");
  EXPECT_EQ(Back->R.Findings, 3u);
  ASSERT_EQ(Back->R.Sites.size(), 3u);
  for (size_t I = 0; I < 3; ++I)
    expectSame(O.R.Sites[I], Back->R.Sites[I]);
}

TEST(OutcomeFile, ManySitesStaySmall) {
  // Each site names its paths, rule and group by index: an unrolled kernel
  // of 20,000 findings must not hand back tens of megabytes.
  FileOutcome O;
  for (unsigned I = 0; I < 1000; ++I)
    O.R.Sites.push_back(site(VerifySite::Proxy,
                             "/a/long/path/to/the/kernel/source.cu", I * 50,
                             true));
  std::string Text = writeOutcome(O);
  EXPECT_LT(Text.size(), 1000u * 200u); // one object per site: 420 a site
  llvm::Expected<FileOutcome> Back = readOutcome(Text);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->R.Sites.size(), 1000u);
}

TEST(OutcomeFile, RefusesASiteThatNamesNoString) {
  FileOutcome O;
  O.R.Sites = {site(VerifySite::Proxy, "k.cu", 100, true)};
  std::string Text = writeOutcome(O);
  // The one site's rule names string 1 of the table; point it past the end.
  size_t Rows = Text.find("\"rows\":[[0,");
  ASSERT_NE(Rows, std::string::npos) << Text;
  Text.replace(Rows + 11, 1, "99");
  llvm::Expected<FileOutcome> Back = readOutcome(Text);
  EXPECT_FALSE(bool(Back));
  if (!Back)
    llvm::consumeError(Back.takeError());
}

TEST(OutcomeFile, RefusesTextItDidNotWrite) {
  for (const char *Text : {"", "{}", "[1,2]", "{\"file\": 3}"}) {
    llvm::Expected<FileOutcome> Back = readOutcome(Text);
    EXPECT_FALSE(bool(Back)) << Text;
    if (!Back)
      llvm::consumeError(Back.takeError());
  }
}

} // namespace
