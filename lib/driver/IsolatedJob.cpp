//===- IsolatedJob.cpp - one input analysed in a child process -------------===//
//
// Why a process and not a deadline checked inside clang: the front end can
// spend unbounded time where no callback runs (template instantiation,
// constant evaluation, a deep expression), and a thread cannot be stopped
// safely from outside. A child process can be killed at any point, and its
// crash does not take the run down.
//
//===----------------------------------------------------------------------===//
#include "driver/IsolatedJob.h"
#include "driver/OutcomeFile.h"
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace proxyfence {

static FileOutcome failed(std::string Why) {
  FileOutcome O;
  O.Failure = std::move(Why);
  return O;
}

static bool writeAll(int FD, llvm::StringRef Data) {
  while (!Data.empty()) {
    ssize_t N = ::write(FD, Data.data(), Data.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data = Data.drop_front(N);
  }
  return true;
}

/// With -j, workers fork from several threads. A child forked while another
/// worker's pipe still has its write end open in the parent would hold that
/// end too, and the other worker would see no end of file until this child
/// exits: a quick file would wait for a slow one and time out with it. So
/// a pipe's write end is open in the parent only inside this lock.
static std::mutex ForkLock;

FileOutcome analyseInputIsolated(const DriverOptions &Opts,
                                 const InputCommand &Job,
                                 const std::set<std::string> &Reported) {
  int Pipe[2];
  pid_t Child;
  {
    std::lock_guard<std::mutex> G(ForkLock);
    if (::pipe(Pipe) != 0)
      return failed(std::string("cannot create a pipe: ") +
                    std::strerror(errno));
    Child = ::fork();
    if (Child < 0) {
      ::close(Pipe[0]);
      ::close(Pipe[1]);
      return failed(std::string("cannot start a process: ") +
                    std::strerror(errno));
    }
    if (Child == 0) {
      ::close(Pipe[0]);
      std::string Text = writeOutcome(analyseInput(Opts, Job, Reported));
      // No exit handlers or destructors: they belong to the parent.
      ::_exit(writeAll(Pipe[1], Text) ? 0 : 1);
    }
    ::close(Pipe[1]);
  }

  using Clock = std::chrono::steady_clock;
  auto Deadline = Clock::now() + std::chrono::seconds(Opts.Timeout);
  std::string Text;
  bool TimedOut = false;
  char Buf[1 << 16];
  for (;;) {
    int Wait = -1;
    if (Opts.Timeout) {
      auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      Deadline - Clock::now())
                      .count();
      if (Left <= 0) {
        TimedOut = true;
        break;
      }
      Wait = int(std::min<long long>(Left, 1 << 30));
    }
    pollfd P{Pipe[0], POLLIN, 0};
    int Ready = ::poll(&P, 1, Wait);
    if (Ready < 0 && errno == EINTR)
      continue;
    if (Ready == 0)
      continue; // the deadline is checked above
    ssize_t N = ::read(Pipe[0], Buf, sizeof Buf);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break; // end of file: the child is done (or died)
    Text.append(Buf, N);
  }
  ::close(Pipe[0]);
  if (TimedOut)
    ::kill(Child, SIGKILL);
  int Status = 0;
  while (::waitpid(Child, &Status, 0) < 0 && errno == EINTR)
    ;
  if (TimedOut)
    return failed("its analysis took longer than --timeout=" +
                  std::to_string(Opts.Timeout) + " seconds");
  if (WIFSIGNALED(Status))
    return failed("its analysis crashed (signal " +
                  std::to_string(WTERMSIG(Status)) + ")");
  if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0)
    return failed("its analysis process failed");
  llvm::Expected<FileOutcome> O = readOutcome(Text);
  if (!O)
    return failed("its analysis result is unreadable: " +
                  llvm::toString(O.takeError()));
  return std::move(*O);
}

} // namespace proxyfence
