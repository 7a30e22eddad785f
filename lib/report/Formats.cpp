//===- Formats.cpp - findings as SARIF 2.1.0 or JSON for CI and scripts ----===//
#include "report/Formats.h"
#include "proxyfence/Rules.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include <algorithm>

using namespace clang;

namespace proxyfence {

namespace {

struct Position {
  unsigned Line = 0;      // 1-based
  unsigned Column = 0;    // 1-based, in bytes (clang's columns)
  unsigned Utf16Column = 0; // 1-based, in UTF-16 code units (SARIF's)
  llvm::StringRef LineText;
};

/// Lines and columns of byte offsets, in the text each file was analysed
/// with.
class Positions {
public:
  explicit Positions(std::map<std::string, std::string> &Texts)
      : Texts(Texts) {}

  Position at(const std::string &Path, unsigned Offset) {
    Position P;
    llvm::StringRef Text = text(Path);
    Offset = std::min<size_t>(Offset, Text.size());
    size_t LineStart = Text.rfind('\n', Offset == 0 ? 0 : Offset - 1);
    LineStart = (LineStart == llvm::StringRef::npos || Offset == 0)
                    ? 0
                    : LineStart + 1;
    P.Line = 1 + Text.take_front(LineStart).count('\n');
    P.Column = Offset - LineStart + 1;
    // UTF-8 to UTF-16: continuation bytes add nothing, 4-byte sequences
    // (surrogate pairs) add two.
    P.Utf16Column = 1;
    for (unsigned char C : Text.slice(LineStart, Offset))
      P.Utf16Column += (C & 0xC0) == 0x80 ? 0 : (C >= 0xF0 ? 2 : 1);
    P.LineText = Text.substr(LineStart).split('\n').first.rtrim('\r');
    return P;
  }

private:
  llvm::StringRef text(const std::string &Path) {
    auto It = Texts.find(Path);
    if (It == Texts.end()) {
      std::string Content;
      if (auto Buf = llvm::MemoryBuffer::getFile(Path))
        Content = (*Buf)->getBuffer().str();
      It = Texts.emplace(Path, std::move(Content)).first;
    }
    return It->second;
  }
  std::map<std::string, std::string> &Texts;
};

/// A diagnostic's path, absolute (relative ones are relative to the
/// command's directory) and without `.`/`..`.
std::string absolute(llvm::StringRef Path, llvm::StringRef BuildDir) {
  llvm::SmallString<256> P;
  if (llvm::sys::path::is_relative(Path) && !BuildDir.empty()) {
    P = BuildDir;
    llvm::sys::path::append(P, Path);
  } else {
    P = Path;
  }
  llvm::sys::fs::make_absolute(P);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

/// Percent-encodes what may not appear in a URI path.
std::string uriPath(llvm::StringRef Path) {
  std::string Out;
  for (unsigned char C : llvm::sys::path::convert_to_slash(Path)) {
    if (llvm::isAlnum(C) || llvm::StringRef("-._~/!$&'()*+,;=:@").contains(C))
      Out += C;
    else
      Out += "%" + llvm::toHex(llvm::ArrayRef<uint8_t>(C));
  }
  return Out;
}

std::string collapseSpaces(llvm::StringRef S) {
  llvm::SmallVector<llvm::StringRef, 16> Words;
  S.split(Words, ' ', -1, /*KeepEmpty=*/false);
  std::string Out;
  for (llvm::StringRef W : Words)
    for (llvm::StringRef Part : llvm::split(W, '\t'))
      if (!Part.empty())
        Out += (Out.empty() ? "" : " ") + Part.str();
  return Out;
}

/// Replacements of a fix in a stable order (the map is unordered).
std::vector<const tooling::Replacement *>
sortedReplacements(const tooling::Diagnostic &D) {
  std::vector<const tooling::Replacement *> Out;
  for (const auto &Entry : D.Message.Fix)
    for (const tooling::Replacement &R : Entry.getValue())
      Out.push_back(&R);
  llvm::sort(Out, [](const tooling::Replacement *A,
                     const tooling::Replacement *B) {
    return std::make_tuple(A->getFilePath(), A->getOffset()) <
           std::make_tuple(B->getFilePath(), B->getOffset());
  });
  return Out;
}

} // namespace

std::string sourceRoot() {
  llvm::SmallString<256> Cwd;
  if (llvm::sys::fs::current_path(Cwd))
    return ".";
  for (llvm::StringRef Dir = Cwd; !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> Git(Dir);
    llvm::sys::path::append(Git, ".git");
    if (llvm::sys::fs::exists(Git)) // a directory, or a file in a worktree
      return Dir.str();
  }
  return std::string(Cwd);
}

namespace {

/// One SARIF log of \p Run: the parts that name a place share the source
/// root, the rules' order and the analysed texts' lines and columns.
class SarifWriter {
public:
  SarifWriter(RunFindings &Run, llvm::raw_ostream &OS)
      : Run(Run), Pos(Run.Texts), Root(sourceRoot()), Rules(allRules()),
        J(OS, 2) {}

  void write() {
    std::vector<std::string> Prints = fingerprints();
    J.object([&] {
      J.attribute("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
      J.attribute("version", "2.1.0");
      J.attributeArray("runs", [&] {
        J.object([&] {
          writeTool();
          J.attributeObject("originalUriBaseIds", [&] {
            J.attributeObject("%SRCROOT%", [&] {
              J.attribute("uri", "file://" + uriPath(Root) + "/");
            });
          });
          J.attribute("columnKind", "utf16CodeUnits");
          writeInvocations();
          J.attributeArray("results", [&] {
            for (size_t I = 0; I < Run.Diags.size(); ++I)
              writeResult(Run.Diags[I], Prints[I]);
          });
        });
      });
    });
  }

private:
  /// An artifactLocation: relative to %SRCROOT% when inside it.
  void location(const std::string &Abs) {
    J.attributeObject("artifactLocation", [&] {
      llvm::StringRef Rel = Abs;
      if (Rel.consume_front(Root) && Rel.consume_front("/")) {
        J.attribute("uri", uriPath(Rel));
        J.attribute("uriBaseId", "%SRCROOT%");
      } else {
        J.attribute("uri", "file://" + uriPath(Abs));
      }
    });
  }

  std::string relative(const std::string &Abs) const {
    llvm::StringRef Rel = Abs;
    return Rel.consume_front(Root) && Rel.consume_front("/") ? Rel.str() : Abs;
  }

  void physical(const std::string &Abs, unsigned Offset) {
    J.attributeObject("physicalLocation", [&] {
      location(Abs);
      Position P = Pos.at(Abs, Offset);
      J.attributeObject("region", [&] {
        J.attribute("startLine", P.Line);
        J.attribute("startColumn", P.Utf16Column);
      });
    });
  }

  /// Fingerprints: the rule, the file and the text of the flagged line and
  /// of the first note's line (the access or the callee's operation), so
  /// that edits elsewhere in the file leave them alone; equal ones are
  /// numbered in order, as GitHub numbers its own line hashes.
  std::vector<std::string> fingerprints() {
    std::vector<std::string> Prints;
    std::map<std::string, unsigned> Seen;
    for (const tooling::Diagnostic &D : Run.Diags) {
      std::string File = absolute(D.Message.FilePath, D.BuildDirectory);
      std::string Key =
          D.DiagnosticName + '\0' + relative(File) + '\0' +
          collapseSpaces(Pos.at(File, D.Message.FileOffset).LineText);
      if (!D.Notes.empty()) {
        const tooling::DiagnosticMessage &N = D.Notes.front();
        Key += '\0' + collapseSpaces(
                          Pos.at(absolute(N.FilePath, D.BuildDirectory),
                                 N.FileOffset)
                              .LineText);
      }
      auto Hash = llvm::SHA256::hash(llvm::arrayRefFromStringRef(Key));
      std::string Hex = llvm::toHex(Hash, /*LowerCase=*/true).substr(0, 32);
      Prints.push_back(Hex + ":" + std::to_string(++Seen[Hex]));
    }
    return Prints;
  }

  /// The tool and its rules, in the registry's order (ruleIndex).
  void writeTool() {
    J.attributeObject("tool", [&] {
      J.attributeObject("driver", [&] {
        J.attribute("name", "proxyfence");
        J.attribute("version", PF_VERSION);
        J.attribute("semanticVersion", PF_VERSION);
        if (llvm::StringRef(PF_HOMEPAGE).size())
          J.attribute("informationUri", PF_HOMEPAGE);
        J.attributeArray("rules", [&] {
          for (const StandaloneRule &R : Rules)
            J.object([&] {
              J.attribute("id", R.Name);
              J.attributeObject("shortDescription",
                                [&] { J.attribute("text", R.Summary); });
              std::string Doc = std::string("docs/rules/") + R.Name + ".md";
              J.attributeObject("help", [&] {
                J.attribute("text", std::string(R.Summary) + ". See " + Doc +
                                        " in the proxyfence sources.");
              });
              if (llvm::StringRef(PF_HOMEPAGE).size())
                J.attribute("helpUri",
                            std::string(PF_HOMEPAGE) + "/blob/HEAD/" + Doc);
              J.attributeObject("defaultConfiguration",
                                [&] { J.attribute("level", "warning"); });
            });
        });
      });
    });
  }

  /// The one invocation, with a notification for each file seen in part.
  void writeInvocations() {
    J.attributeArray("invocations", [&] {
      J.object([&] {
        J.attribute("executionSuccessful", true);
        J.attributeArray("toolExecutionNotifications", [&] {
          for (const auto &[File, Why] : Run.Incomplete)
            J.object([&] {
              J.attribute("level", "warning");
              J.attributeObject("message", [&] { J.attribute("text", Why); });
              J.attributeArray("locations", [&] {
                J.object([&] {
                  J.attributeObject("physicalLocation",
                                    [&] { location(absolute(File, "")); });
                });
              });
            });
        });
      });
    });
  }

  void writeResult(const tooling::Diagnostic &D, const std::string &Print) {
    std::string File = absolute(D.Message.FilePath, D.BuildDirectory);
    auto RuleIt = llvm::find_if(Rules, [&](const StandaloneRule &R) {
      return D.DiagnosticName == R.Name;
    });
    J.object([&] {
      J.attribute("ruleId", D.DiagnosticName);
      if (RuleIt != Rules.end())
        J.attribute("ruleIndex", int64_t(RuleIt - Rules.begin()));
      J.attribute("level", "warning");
      J.attributeObject("message",
                        [&] { J.attribute("text", D.Message.Message); });
      J.attributeArray("locations", [&] {
        J.object([&] { physical(File, D.Message.FileOffset); });
      });
      J.attributeArray("relatedLocations", [&] {
        for (size_t N = 0; N < D.Notes.size(); ++N)
          J.object([&] {
            J.attribute("id", int64_t(N));
            J.attributeObject("message",
                              [&] { J.attribute("text", D.Notes[N].Message); });
            physical(absolute(D.Notes[N].FilePath, D.BuildDirectory),
                     D.Notes[N].FileOffset);
          });
      });
      J.attributeObject("partialFingerprints", [&] {
        J.attribute("proxyfenceFindingHash/v1", Print);
      });
      std::vector<const tooling::Replacement *> Repls = sortedReplacements(D);
      if (!Repls.empty())
        writeFixes(D, Repls);
    });
  }

  /// A result's fix: its replacements grouped by file, described by the
  /// notes placed at its edits.
  void writeFixes(const tooling::Diagnostic &D,
                  const std::vector<const tooling::Replacement *> &Repls) {
    std::string What;
    for (const tooling::DiagnosticMessage &N : D.Notes)
      for (const tooling::Replacement *R : Repls)
        if (N.FilePath == R->getFilePath() && N.FileOffset == R->getOffset()) {
          What += (What.empty() ? "" : "; ") + N.Message;
          break;
        }
    J.attributeArray("fixes", [&] {
      J.object([&] {
        J.attributeObject("description", [&] {
          J.attribute("text", What.empty() ? "insert the fence" : What);
        });
        J.attributeArray("artifactChanges", [&] {
          for (size_t K = 0; K < Repls.size();) {
            std::string Path = Repls[K]->getFilePath().str();
            std::string Abs = absolute(Path, D.BuildDirectory);
            J.object([&] {
              location(Abs);
              J.attributeArray("replacements", [&] {
                for (; K < Repls.size() && Repls[K]->getFilePath() == Path; ++K)
                  writeReplacement(Abs, *Repls[K]);
              });
            });
          }
        });
      });
    });
  }

  void writeReplacement(const std::string &Abs, const tooling::Replacement &R) {
    Position B = Pos.at(Abs, R.getOffset());
    Position E = Pos.at(Abs, R.getOffset() + R.getLength());
    J.object([&] {
      J.attributeObject("deletedRegion", [&] {
        J.attribute("startLine", B.Line);
        J.attribute("startColumn", B.Utf16Column);
        J.attribute("endLine", E.Line);
        J.attribute("endColumn", E.Utf16Column);
      });
      J.attributeObject("insertedContent",
                        [&] { J.attribute("text", R.getReplacementText()); });
    });
  }

  RunFindings &Run;
  Positions Pos;
  std::string Root;
  std::vector<StandaloneRule> Rules;
  llvm::json::OStream J;
};

} // namespace

void writeSarif(RunFindings &Run, llvm::raw_ostream &OS) {
  SarifWriter(Run, OS).write();
  OS << "\n";
}

void writeJson(RunFindings &Run, llvm::raw_ostream &OS) {
  Positions Pos(Run.Texts);
  llvm::json::OStream J(OS, 2);
  auto place = [&](const std::string &File, unsigned Offset) {
    Position P = Pos.at(File, Offset);
    J.attribute("file", File);
    J.attribute("line", P.Line);
    J.attribute("column", P.Column);
  };
  J.object([&] {
    J.attribute("version", 1);
    J.attributeArray("findings", [&] {
      for (const tooling::Diagnostic &D : Run.Diags)
        J.object([&] {
          J.attribute("rule", D.DiagnosticName);
          place(absolute(D.Message.FilePath, D.BuildDirectory),
                D.Message.FileOffset);
          J.attribute("message", D.Message.Message);
          J.attributeArray("notes", [&] {
            for (const tooling::DiagnosticMessage &N : D.Notes)
              J.object([&] {
                place(absolute(N.FilePath, D.BuildDirectory), N.FileOffset);
                J.attribute("message", N.Message);
              });
          });
          J.attributeArray("fix", [&] {
            for (const tooling::Replacement *R : sortedReplacements(D))
              J.object([&] {
                place(absolute(R->getFilePath(), D.BuildDirectory),
                      R->getOffset());
                J.attribute("offset", R->getOffset());
                J.attribute("length", R->getLength());
                J.attribute("replacement", R->getReplacementText());
              });
          });
        });
    });
    J.attributeArray("incomplete", [&] {
      for (const auto &[File, Why] : Run.Incomplete)
        J.object([&] {
          J.attribute("file", File);
          J.attribute("message", Why);
        });
    });
  });
  OS << "\n";
}

} // namespace proxyfence
