//===- WriteTest.cpp - writeFileAtomically: what --fix may and may not write -===//
#include "support/Files.h"
#include "proxyfence/Driver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <sys/stat.h>
#include <unistd.h>

using namespace proxyfence;
namespace fs = llvm::sys::fs;

namespace {

class WriteTest : public ::testing::Test {
protected:
  llvm::SmallString<128> Dir;
  void SetUp() override {
    ASSERT_FALSE(fs::createUniqueDirectory("proxyfence-write", Dir));
  }
  void TearDown() override { fs::remove_directories(Dir); }

  std::string path(llvm::StringRef Name) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
  static void put(const std::string &Path, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }
  static std::string get(const std::string &Path) {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    return Buf ? (*Buf)->getBuffer().str() : "<unreadable>";
  }
  /// Names in the directory: a failed or finished write leaves no
  /// temporary file.
  std::vector<std::string> entries() {
    std::vector<std::string> Names;
    std::error_code EC;
    for (fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC))
      Names.push_back(llvm::sys::path::filename(It->path()).str());
    llvm::sort(Names);
    return Names;
  }
};

TEST_F(WriteTest, ReplacesContentAndKeepsMode) {
  std::string F = path("k.cu");
  put(F, "old\n");
  ASSERT_FALSE(fs::setPermissions(F, fs::perms(0640)));
  ASSERT_FALSE(llvm::errorToBool(writeFileAtomically(F, "old\n", "new\n")));
  EXPECT_EQ(get(F), "new\n");
  EXPECT_EQ(fs::getPermissions(F).get(), fs::perms(0640));
  EXPECT_EQ(entries(), std::vector<std::string>{"k.cu"});
}

TEST_F(WriteTest, FileChangedSinceReadIsNotOverwritten) {
  std::string F = path("k.cu");
  put(F, "edited by the user meanwhile\n");
  llvm::Error E = writeFileAtomically(F, "what was analysed\n", "fixed\n");
  ASSERT_TRUE(!!E);
  EXPECT_EQ(llvm::toString(std::move(E)),
            "'" + F + "' changed on disk during the analysis; not overwritten");
  EXPECT_EQ(get(F), "edited by the user meanwhile\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"k.cu"});
}

TEST_F(WriteTest, FileGoneSinceReadIsNotRecreated) {
  std::string F = path("gone.cu");
  llvm::Error E = writeFileAtomically(F, "text\n", "fixed\n");
  ASSERT_TRUE(!!E);
  EXPECT_EQ(llvm::toString(std::move(E)),
            "cannot read '" + F + "': No such file or directory; not overwritten");
  EXPECT_TRUE(entries().empty());
}

TEST_F(WriteTest, SymlinkWritesItsTarget) {
  std::string Target = path("target.cu"), Link = path("link.cu");
  put(Target, "old\n");
  ASSERT_FALSE(fs::create_link("target.cu", Link));
  ASSERT_FALSE(llvm::errorToBool(writeFileAtomically(Link, "old\n", "new\n")));
  EXPECT_EQ(get(Target), "new\n");
  fs::file_status St;
  ASSERT_FALSE(fs::status(Link, St, /*follow=*/false));
  EXPECT_EQ(St.type(), fs::file_type::symlink_file);
  EXPECT_EQ(entries(), (std::vector<std::string>{"link.cu", "target.cu"}));
}

TEST_F(WriteTest, ReadOnlyFileIsNotReplaced) {
  std::string F = path("ro.cu");
  put(F, "old\n");
  ASSERT_FALSE(fs::setPermissions(F, fs::perms(0444)));
  llvm::Error E = writeFileAtomically(F, "old\n", "new\n");
  ASSERT_TRUE(!!E);
  EXPECT_EQ(llvm::toString(std::move(E)), "'" + F + "' is read-only; not overwritten");
  EXPECT_EQ(get(F), "old\n");
  EXPECT_EQ(whyNotWritable(F), "'" + F + "' is read-only");
}

TEST_F(WriteTest, OwnerIsKept) {
  if (geteuid() != 0)
    GTEST_SKIP() << "only root can give a file to another user";
  std::string F = path("owned.cu");
  put(F, "old\n");
  ASSERT_EQ(::chown(F.c_str(), 4321, 4322), 0);
  ASSERT_FALSE(llvm::errorToBool(writeFileAtomically(F, "old\n", "new\n")));
  struct stat St;
  ASSERT_EQ(::stat(F.c_str(), &St), 0);
  EXPECT_EQ(St.st_uid, 4321u);
  EXPECT_EQ(St.st_gid, 4322u);
  EXPECT_EQ(get(F), "new\n");
}

} // namespace
