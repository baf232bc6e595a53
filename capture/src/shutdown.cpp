// Finishing open traces at exit and on signals.
//
// Signals (SIGINT, SIGTERM, SIGABRT): the handler does only async-signal-safe things: it writes the
// signal number to a pipe and, in two cases, waits (poll, bounded) for a byte on a second pipe. A
// "shutdown" thread blocked on the first pipe does the real work with ordinary code: it asks every open
// capture to finish (its writer writes the frames already queued, the chunk in hand and the index, then
// closes the file), then answers on the second pipe.
//  - SIGINT/SIGTERM whose previous disposition was the default: the handler returns at once; once the
//    traces are finished the shutdown thread restores the default and re-raises the signal, so the
//    process still dies of it (exit status as without reel).
//  - a previous handler of the application's own: the handler waits for the traces (up to
//    kSignalWaitMs), then calls that handler, which decides what happens next.
//  - SIGABRT: abort() kills the process once the handler returns, so the handler waits (up to
//    kSignalWaitMs) for the traces first. The wait is bounded because an abort may come from a thread
//    that holds a lock the writer needs (or from inside malloc): then the trace keeps what was written
//    before, whole chunks only. On a capture thread itself it does not wait at all.
// A disposition of SIG_IGN is left alone (nohup'ed processes keep ignoring SIGINT/SIGHUP).
// SIGKILL cannot be caught: chunks are written whole, one write() each, so the file reads up to its
// last complete chunk.

#include "shutdown.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "reel/capture/capture.h"

namespace reel::capture::detail {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGABRT};
constexpr int kSignalWaitMs = 5000;

struct Registry {
  std::mutex mutex;
  std::vector<Capture*> captures;
  bool atexitRegistered = false;
  bool signalsInstalled = false;
};

// Leaked on purpose: exit handlers and the shutdown thread may use it after static destructors ran.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

int gSignalPipe[2] = {-1, -1};  // handler -> shutdown thread: the signal number, one byte
int gDonePipe[2] = {-1, -1};    // shutdown thread -> handler: traces finished
struct sigaction gPrevious[std::size(kSignals)];

// Set on writer and shutdown threads: an abort() there must not wait for the work it would do itself.
thread_local bool tCaptureThread __attribute__((tls_model("initial-exec"))) = false;

int slotOf(int sig) {
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] == sig) return static_cast<int>(i);
  }
  return -1;
}

// sa_handler and sa_sigaction share storage: SIG_DFL and SIG_IGN read the same through either.
bool isFunction(const struct sigaction& action) {
  return action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN;
}

void finishAll(const char* reason) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (Capture* capture : r.captures) capture->finishForShutdown(reason);
}

void onExit() {
  finishAll("exit");
}

// ---- signal context: async-signal-safe calls only (read, write, poll) ----
void onSignal(int sig, siginfo_t* info, void* context) {
  const int savedErrno = errno;
  const int slot = slotOf(sig);
  const bool chains = slot >= 0 && isFunction(gPrevious[slot]);
  const bool wait = (sig == SIGABRT || chains) && !tCaptureThread;
  if (wait) {
    char drain[16];
    while (::read(gDonePipe[0], drain, sizeof drain) > 0) {
    }
  }
  const char byte = static_cast<char>(sig);
  [[maybe_unused]] const ssize_t written = ::write(gSignalPipe[1], &byte, 1);
  if (wait) {
    pollfd done{gDonePipe[0], POLLIN, 0};
    while (::poll(&done, 1, kSignalWaitMs) < 0 && errno == EINTR) {
    }
  }
  if (chains) {
    const struct sigaction& previous = gPrevious[slot];
    if (previous.sa_flags & SA_SIGINFO) {
      previous.sa_sigaction(sig, info, context);
    } else {
      previous.sa_handler(sig);
    }
  }
  errno = savedErrno;
}
// ---- end of signal context ----

void shutdownThread() {
  tCaptureThread = true;
  for (;;) {
    char byte;
    const ssize_t n = ::read(gSignalPipe[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    const int sig = static_cast<unsigned char>(byte);
    const std::string reason = "signal " + std::to_string(sig);
    finishAll(reason.c_str());
    const char done = 1;
    [[maybe_unused]] const ssize_t written = ::write(gDonePipe[1], &done, 1);
    const int slot = slotOf(sig);
    if (sig != SIGABRT && slot >= 0 && !isFunction(gPrevious[slot])) {
      // The process would have died of this signal: let it, now that the traces are whole.
      ::sigaction(sig, &gPrevious[slot], nullptr);
      ::kill(::getpid(), sig);
    }
  }
}

void installSignals() {
  if (::pipe2(gSignalPipe, O_CLOEXEC) != 0 || ::pipe2(gDonePipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  std::thread(shutdownThread).detach();
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction current {};
    ::sigaction(kSignals[i], nullptr, &current);
    if (current.sa_handler == SIG_IGN) continue;
    gPrevious[i] = current;
    struct sigaction action {};
    action.sa_sigaction = onSignal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    ::sigaction(kSignals[i], &action, nullptr);
  }
}

}  // namespace

void registerForShutdown(Capture* capture) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.captures.push_back(capture);
  if (!r.atexitRegistered) {
    r.atexitRegistered = true;
    std::atexit(onExit);
  }
  if (!r.signalsInstalled) {
    r.signalsInstalled = true;
    installSignals();
  }
}

void unregisterForShutdown(Capture* capture) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::erase(r.captures, capture);
}

void markCaptureThread() {
  tCaptureThread = true;
}

}  // namespace reel::capture::detail
