#include "TaskQueue.h"

namespace sbui {

TaskQueue::~TaskQueue()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_jobs.clear();
    }
    m_wake.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

void TaskQueue::post(std::function<void()> job)
{
    {
        std::lock_guard lock(m_mutex);
        m_jobs.push_back(std::move(job));
        if (!m_thread.joinable()) m_thread = std::thread([this] { loop(); });
    }
    m_wake.notify_one();
}

void TaskQueue::clearPending()
{
    std::lock_guard lock(m_mutex);
    m_jobs.clear();
}

void TaskQueue::loop()
{
    while (true) {
        std::function<void()> job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_jobs.empty(); });
            if (m_stopping) return;
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
        }
        job();
    }
}

} // namespace sbui
