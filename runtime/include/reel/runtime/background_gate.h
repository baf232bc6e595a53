#pragma once
// Keeps background work (a capture's gathering, encoding and compressing) off the cores while the
// renderer's workers use every one of them, and lets it run in the frame's serial phases, when they idle.
//
// A renderer that goes wide runs a fork-join on as many workers as there are cores; a background thread
// that takes one of those cores holds the whole join up until the scheduler gives the core back. The
// renderer closes its gate for each such phase (Renderer::backgroundGate); a background thread calls
// pause() between small pieces of its work, which returns at once while the gate is open and waits
// while it is closed. A piece already begun finishes: pauses are as fine as the pieces.
//
//   while (more) {
//     gate.pause();  // no lock held here
//     doPiece();
//   }
//
// Background work that must not fall behind (its queue nearly full) simply stops calling pause().

#include <atomic>
#include <cstdint>

namespace reel {

class BackgroundGate {
 public:
  BackgroundGate() = default;
  BackgroundGate(const BackgroundGate&) = delete;
  BackgroundGate& operator=(const BackgroundGate&) = delete;

  // Closes the gate until the matching open(); closes nest (the gate is open when every close has been
  // opened again).
  void close() { closes_.fetch_add(1, std::memory_order_acq_rel); }
  void open() {
    if (closes_.fetch_sub(1, std::memory_order_acq_rel) == 1) closes_.notify_all();
  }
  bool isOpen() const { return closes_.load(std::memory_order_acquire) == 0; }

  // Returns once the gate is open: at once when it is; counts the pauses that waited.
  void pause() {
    uint32_t closes = closes_.load(std::memory_order_acquire);
    if (closes == 0) return;
    waits_.fetch_add(1, std::memory_order_relaxed);
    do {
      closes_.wait(closes, std::memory_order_acquire);
    } while ((closes = closes_.load(std::memory_order_acquire)) != 0);
  }
  // How many pause() calls found the gate closed and waited, since the gate was made.
  uint64_t waits() const { return waits_.load(std::memory_order_relaxed); }

  // Closed for a scope: BackgroundGate::Closed closed(gate);
  class Closed {
   public:
    explicit Closed(BackgroundGate* gate) : gate_(gate) {
      if (gate_) gate_->close();
    }
    ~Closed() {
      if (gate_) gate_->open();
    }
    Closed(const Closed&) = delete;
    Closed& operator=(const Closed&) = delete;

   private:
    BackgroundGate* gate_;
  };

 private:
  std::atomic<uint32_t> closes_{0};
  std::atomic<uint64_t> waits_{0};
};

}  // namespace reel
