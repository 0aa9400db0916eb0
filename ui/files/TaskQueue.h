// One background thread that runs jobs in order, so reading a large folder, scanning the
// session's layer, computing a diff or applying changes never blocks the GUI thread. A job's
// result goes back to the GUI thread as a queued call on the owning QObject.
#pragma once

#include <QMetaObject>
#include <QObject>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace sbui {

class TaskQueue {
  public:
    TaskQueue() = default;
    // Drops the jobs not started yet and waits for the running one.
    ~TaskQueue();
    TaskQueue(const TaskQueue&) = delete;
    TaskQueue& operator=(const TaskQueue&) = delete;

    void post(std::function<void()> job);
    // Forgets the jobs not started yet.
    void clearPending();

    // Runs work() on the queue's thread, then done(result) on `owner`'s thread. The queue
    // must be a member of `owner`: its destructor joins the thread before QObject's destructor
    // removes the calls still posted, so none reaches a destroyed owner.
    template <class Work, class Done> void run(QObject* owner, Work work, Done done)
    {
        post([owner, work = std::move(work), done = std::move(done)]() mutable {
            auto result = work();
            QMetaObject::invokeMethod(
                owner,
                [done = std::move(done), result = std::move(result)]() mutable {
                    done(std::move(result));
                },
                Qt::QueuedConnection);
        });
    }

  private:
    void loop();

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_jobs;
    bool m_stopping = false;
    std::thread m_thread; // started by the first post
};

} // namespace sbui
