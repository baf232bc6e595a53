#pragma once
// Finishing traces when the process ends without destroying its captures: exit(), SIGINT, SIGTERM and
// abort(). See shutdown.cpp for how the signal handlers stay async-signal-safe.

namespace reel::capture {
class Capture;
}

namespace reel::capture::detail {

// From Capture::start, for a capture with handleSignals. The first call registers an atexit handler,
// installs the signal handlers and starts the thread that does the work for them.
void registerForShutdown(Capture* capture);
// From ~Capture, before anything is torn down: waits while a shutdown is finishing this capture.
void unregisterForShutdown(Capture* capture);
// Called by the writer thread when it starts: an abort() on this thread must not wait for itself.
void markCaptureThread();

}  // namespace reel::capture::detail
