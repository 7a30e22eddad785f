//===- Harness.cpp - layer 3 of verification: run a harness ---------------===//
#include "verify/Harness.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <regex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace proxyfence {

using llvm::StringRef;

namespace {

/// Exit status and wall clock of \p Cmd run with its output in \p Log.
HarnessRun runShell(const std::string &Cmd, unsigned Timeout, StringRef Log) {
  using Clock = std::chrono::steady_clock;
  llvm::outs().flush();
  llvm::errs().flush();
  HarnessRun R;
  auto Start = Clock::now();
  pid_t Pid = fork();
  if (Pid < 0)
    return R;
  if (Pid == 0) {
    setpgid(0, 0);
    int Null = open("/dev/null", O_RDONLY);
    dup2(Null, 0);
    int Out = Log.empty() ? open("/dev/null", O_WRONLY)
                          : open(Log.str().c_str(), O_WRONLY | O_TRUNC);
    dup2(Out, 1);
    dup2(Out, 2);
    execl("/bin/sh", "sh", "-c", Cmd.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  setpgid(Pid, Pid); // also here: the child may not have run yet
  auto Deadline = Start + std::chrono::seconds(Timeout);
  int Status = 0;
  bool TimedOut = false;
  while (true) {
    pid_t W = waitpid(Pid, &Status, WNOHANG);
    if (W == Pid || (W < 0 && errno != EINTR))
      break;
    if (Clock::now() >= Deadline) {
      TimedOut = true;
      kill(-Pid, SIGTERM);
      auto Grace = Clock::now() + std::chrono::seconds(2);
      while (waitpid(Pid, &Status, WNOHANG) == 0 && Clock::now() < Grace)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      kill(-Pid, SIGKILL); // whatever is left of the group
      waitpid(Pid, &Status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  R.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
  if (TimedOut) {
    R.Status = HarnessRun::TimedOut;
  } else if (WIFEXITED(Status)) {
    R.ExitCode = WEXITSTATUS(Status);
    R.Status = R.ExitCode == 0    ? HarnessRun::Passed
               : R.ExitCode == 77 ? HarnessRun::Skipped
                                  : HarnessRun::Failed;
  } else {
    R.Signal = WIFSIGNALED(Status) ? WTERMSIG(Status) : 0;
    R.Status = HarnessRun::Failed;
  }
  return R;
}

std::string seconds(double S) {
  char Buf[32];
  if (S >= 1)
    snprintf(Buf, sizeof(Buf), "%.1f s", S);
  else if (S >= 1e-3)
    snprintf(Buf, sizeof(Buf), "%.2f ms", S * 1e3);
  else
    snprintf(Buf, sizeof(Buf), "%.2f us", S * 1e6);
  return Buf;
}

/// "passed (exit 0, 1.2 s, 12.50 us/run)".
std::string outcome(const HarnessRun &R, unsigned Timeout) {
  std::string Time = seconds(R.Seconds);
  if (R.PerRun)
    Time += ", " + seconds(*R.PerRun) + "/run";
  switch (R.Status) {
  case HarnessRun::NotStarted:
    return "FAILED: cannot start /bin/sh";
  case HarnessRun::TimedOut:
    return "TIMEOUT after " + std::to_string(Timeout) +
           " s (process group killed)";
  case HarnessRun::Passed:
    return "passed (exit 0, " + Time + ")";
  case HarnessRun::Skipped:
    return "skipped by the harness (exit 77, " + Time + ")";
  case HarnessRun::Failed:
    if (R.Signal)
      return "FAILED (killed by signal " + std::to_string(R.Signal) + ", " +
             Time + ")";
    return "FAILED (exit " + std::to_string(R.ExitCode) + ", " + Time + ")";
  }
  return "";
}

} // namespace

bool gpuPresent() {
  // Asked once per process: the baseline run and the run step both need it.
  static const bool Present = [] {
    const char *Probe = std::getenv("PROXYFENCE_GPU_PROBE");
    HarnessRun R = runShell(Probe && *Probe ? Probe : "nvidia-smi -L",
                            /*Timeout=*/30, "");
    return R.Status == HarnessRun::Passed;
  }();
  return Present;
}

HarnessRun runHarness(const std::string &Cmd, unsigned Timeout) {
  llvm::SmallString<128> Log;
  int FD;
  if (llvm::sys::fs::createTemporaryFile("proxyfence-run", "log", FD, Log))
    return HarnessRun();
  close(FD);
  HarnessRun R = runShell(Cmd, Timeout, Log);
  if (auto Buf = llvm::MemoryBuffer::getFile(Log, /*IsText=*/true))
    R.Output = (*Buf)->getBuffer().str();
  llvm::sys::fs::remove(Log);
  R.PerRun = timePerRun(R.Output);
  return R;
}

std::optional<double> timePerRun(StringRef Output) {
  // The figure is near the end (a summary line); a huge log is cut.
  std::string Tail = Output.take_back(1 << 16).str();
  static const std::regex Re(
      R"(([0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?) ?(ns|us|µs|ms|s) ?/ ?run\b)");
  std::optional<double> Last;
  for (auto It = std::sregex_iterator(Tail.begin(), Tail.end(), Re);
       It != std::sregex_iterator(); ++It) {
    double V = std::strtod((*It)[1].str().c_str(), nullptr);
    std::string Unit = (*It)[4].str();
    double Scale = Unit == "ns" ? 1e-9 : Unit == "ms" ? 1e-3 : Unit == "s" ? 1 : 1e-6;
    if (std::isfinite(V))
      Last = V * Scale;
  }
  return Last;
}

void reportRun(llvm::raw_ostream &OS, StringRef Label, const std::string &Cmd,
               unsigned Timeout, const HarnessRun &R) {
  OS << R.Output;
  if (!R.Output.empty() && R.Output.back() != '\n')
    OS << "\n";
  OS << "proxyfence: verify: " << Label << "run " << outcome(R, Timeout) << ": "
     << Cmd << "\n";
}

void reportComparison(llvm::raw_ostream &OS, StringRef Name,
                      const HarnessRun &Original, const HarnessRun &Fixed) {
  OS << "proxyfence: verify: " << Name << ": original ";
  auto Word = [](const HarnessRun &R) {
    return R.Status == HarnessRun::Passed    ? "passed"
           : R.Status == HarnessRun::Skipped ? "skipped"
           : R.Status == HarnessRun::TimedOut ? "TIMED OUT"
                                              : "FAILED";
  };
  OS << Word(Original) << ", fixed " << Word(Fixed);
  if (!Original.ok() && Fixed.Status == HarnessRun::Passed)
    OS << ": the harness saw the bug in the original and not after the fix\n";
  else if (Original.Status == HarnessRun::Passed &&
           Fixed.Status == HarnessRun::Passed)
    OS << " (a missing proxy fence corrupts results only now and then: a "
          "passing original proves little; the PTX check is the proof)\n";
  else
    OS << "\n";
  // The harness's own figure times the kernels, right or wrong; the wall
  // clock of a run that failed or was cut short says nothing.
  bool Own = Original.PerRun && Fixed.PerRun;
  auto Finished = [](const HarnessRun &R) {
    return R.Status == HarnessRun::Passed || R.Status == HarnessRun::Failed;
  };
  if (Own ? !Finished(Original) || !Finished(Fixed)
          : Original.Status != HarnessRun::Passed ||
                Fixed.Status != HarnessRun::Passed)
    return;
  double O = Own ? *Original.PerRun : Original.Seconds;
  double F = Own ? *Fixed.PerRun : Fixed.Seconds;
  char Ratio[32];
  snprintf(Ratio, sizeof(Ratio), "%.2f", O > 0 ? F / O : 0.0);
  OS << "proxyfence: verify: " << Name << ": time per run: original "
     << seconds(O) << ", fixed " << seconds(F) << ", fixed/original " << Ratio
     << (Own ? " (the harness's own '/run' figures)"
             : " (wall clock of the whole command: the harness printed no "
               "'<time>/run' figure)")
     << "\n";
}

} // namespace proxyfence
