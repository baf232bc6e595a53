// setThisThreadPriority changes the calling thread alone, as the capture's background threads need: the
// thread that made them keeps its priority.

#include "reel/runtime/thread_priority.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace reel {
namespace {

int niceOf(pid_t tid) {
  errno = 0;
  return getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
}

pid_t thisThread() {
  return static_cast<pid_t>(syscall(SYS_gettid));
}

TEST(ThreadName, TheCallingThreadIsNamedAndALongNameCutTo15Bytes) {
  std::thread([] {
    char name[32] = {};
    nameThisThread("reel-worker");
    ASSERT_EQ(pthread_getname_np(pthread_self(), name, sizeof name), 0);
    EXPECT_STREQ(name, "reel-worker");
    nameThisThread("reel-a-name-longer-than-the-kernel-keeps");
    ASSERT_EQ(pthread_getname_np(pthread_self(), name, sizeof name), 0);
    EXPECT_STREQ(name, "reel-a-name-lon");
  }).join();
}

TEST(ThreadPriority, NamesReadBackAndAnUnknownNameIsRefused) {
  for (const ThreadPriority p : {ThreadPriority::Normal, ThreadPriority::Background, ThreadPriority::Idle})
    EXPECT_EQ(parseThreadPriority(threadPriorityName(p)), p);
  EXPECT_EQ(parseThreadPriority("low"), std::nullopt);
  EXPECT_EQ(parseThreadPriority(""), std::nullopt);
  EXPECT_EQ(parseThreadPriority("Idle"), std::nullopt);
}

TEST(ThreadPriority, BackgroundRaisesTheCallingThreadsNiceByTen) {
  const int parentNice = niceOf(thisThread());
  int before = 0, after = 0;
  bool ok = false;
  std::thread([&] {
    before = niceOf(thisThread());
    ok = static_cast<bool>(setThisThreadPriority(ThreadPriority::Background));
    after = niceOf(thisThread());
  }).join();
  ASSERT_TRUE(ok);
  EXPECT_EQ(after, std::min(before + 10, 19));
  EXPECT_EQ(niceOf(thisThread()), parentNice) << "the calling thread alone";
}

TEST(ThreadPriority, IdleMovesTheCallingThreadToSchedIdle) {
  const int parentPolicy = sched_getscheduler(0);
  int before = -1, after = -1;
  bool ok = false;
  std::thread([&] {
    before = sched_getscheduler(0);
    ok = static_cast<bool>(setThisThreadPriority(ThreadPriority::Idle));
    after = sched_getscheduler(0);
  }).join();
  ASSERT_TRUE(ok);
  EXPECT_EQ(before, parentPolicy);
  EXPECT_EQ(after, SCHED_IDLE);
  EXPECT_EQ(sched_getscheduler(0), parentPolicy) << "the calling thread alone";
}

TEST(ThreadPriority, AnotherThreadGoesIdleAndBackToNormal) {
  std::atomic<uint64_t> id{0};
  std::atomic<bool> done{false};
  std::thread other([&] {
    id = currentThreadId();
    while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (id == 0) std::this_thread::yield();
  const auto tid = static_cast<pid_t>(id.load());
  const int before = sched_getscheduler(tid);
  ASSERT_TRUE(setThreadPriority(id, ThreadPriority::Idle));
  EXPECT_EQ(sched_getscheduler(tid), SCHED_IDLE);
  EXPECT_NE(sched_getscheduler(0), SCHED_IDLE) << "that thread alone";
  // What setThisThreadPriority never does: an idle thread back to the normal policy, without privilege.
  ASSERT_TRUE(setThreadPriority(id, ThreadPriority::Normal));
  EXPECT_EQ(sched_getscheduler(tid), before);
  done = true;
  other.join();
  EXPECT_FALSE(setThreadPriority(0x7fffffff, ThreadPriority::Idle)) << "no such thread";
}

// A group: a thread that enters takes the group's priority, setPriority moves every member, and a thread
// that left is no longer touched.
TEST(ThreadPriorityGroup, MembersFollowTheGroupAndALeaverKeepsItsPriority) {
  ThreadPriorityGroup group(ThreadPriority::Idle);
  std::atomic<uint64_t> id{0};
  std::atomic<int> step{0};
  std::thread member([&] {
    EXPECT_TRUE(group.enter());
    id = currentThreadId();
    while (step < 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    group.leave();
    step = 2;
    while (step < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (id == 0) std::this_thread::yield();
  const auto tid = static_cast<pid_t>(id.load());
  EXPECT_EQ(sched_getscheduler(tid), SCHED_IDLE) << "entered at the group's priority";
  ASSERT_TRUE(group.setPriority(ThreadPriority::Normal));
  EXPECT_EQ(group.priority(), ThreadPriority::Normal);
  EXPECT_NE(sched_getscheduler(tid), SCHED_IDLE) << "a member follows the group";
  step = 1;
  while (step < 2) std::this_thread::yield();
  ASSERT_TRUE(group.setPriority(ThreadPriority::Idle));
  EXPECT_NE(sched_getscheduler(tid), SCHED_IDLE) << "a thread that left is not moved";
  EXPECT_NE(sched_getscheduler(0), SCHED_IDLE) << "nor the caller";
  step = 3;
  member.join();
}

TEST(ThreadPriority, NormalChangesNothing) {
  const int nice = niceOf(thisThread());
  const int policy = sched_getscheduler(0);
  ASSERT_TRUE(setThisThreadPriority(ThreadPriority::Normal));
  EXPECT_EQ(niceOf(thisThread()), nice);
  EXPECT_EQ(sched_getscheduler(0), policy);
}

}  // namespace
}  // namespace reel
