// Spare sandboxes (docs/e2b.md, "Spare sandboxes"): from a template's first create on, one
// session of it is started ahead on a thread of its own and handed to the next create that a
// fresh start would give the same sandbox. A spare is used once and nothing passes from one
// sandbox to another: each is a session of its own, started for no one, given its create's
// access token, metadata, environment and timeout when it is claimed.
#include "e2b/E2bInternal.h"

namespace sb::e2b {

using Steady = std::chrono::steady_clock;

bool Launcher::spareFits(const SandboxSpec&)
{
    return true;
}

bool Api::spareServes(const SandboxSpec& spec)
{
    if (!m_options.spares) return false;
    // What makes the session itself differ: its network rules, the files it starts with.
    if (!spec.allowOut.empty() || !spec.denyOut.empty() || !spec.internet.value_or(true))
        return false;
    if (!spec.resumeFrom.empty() || !spec.snapshotSession.empty()) return false;
    // A code interpreter's kernel starts with the sandbox's environment.
    if (isCodeInterpreterTemplate(spec.templateId) && !spec.envVars.empty()) return false;
    return m_launcher.spareFits(spec);
}

std::shared_ptr<Api::Sandbox> Api::claimSpare(const std::string& templateId)
{
    std::shared_ptr<Sandbox> taken;
    {
        std::unique_lock lock(m_mutex);
        auto it = m_spares.find(templateId);
        if (it == m_spares.end()) return nullptr; // the template's first create
        // One on its way is ready sooner than a fresh start, which would wait for it at the
        // launcher (one start at a time) anyway. One not yet begun (the thread is starting
        // another template's, a code interpreter's kernel perhaps) is not waited for.
        SpareSlot& slot = it->second;
        m_spareCv.wait(lock, [&] { return m_sparesStopping || slot.ready || !slot.starting; });
        taken = std::move(slot.ready);
        slot.ready.reset();
    }
    m_spareCv.notify_all(); // the next one starts
    if (!taken) return nullptr;
    if (taken->link->alive()) return taken;
    // Its session ended meanwhile (stopped in the window or by `sandbench-cli stop`).
    if (m_options.log) m_options.log("spare sandbox " + taken->id + " had ended: not used");
    discard(*taken);
    return nullptr;
}

void Api::wantSpare(const std::string& templateId)
{
    {
        std::lock_guard lock(m_mutex);
        m_spares[templateId].failed = false; // a create started it: try again
    }
    m_spareCv.notify_all();
}

void Api::keepSpares()
{
    std::unique_lock lock(m_mutex);
    while (!m_sparesStopping) {
        // A template without a spare, or whose spare is past its age.
        std::string due;
        std::shared_ptr<Sandbox> old;
        auto next = Steady::time_point::max();
        const auto now = Steady::now();
        for (auto& [templateId, slot] : m_spares) {
            if (slot.failed || slot.starting) continue;
            if (slot.ready && now - slot.since < m_options.spareMaxAge) {
                next = std::min(next, slot.since + m_options.spareMaxAge);
                continue;
            }
            due = templateId;
            old = std::move(slot.ready);
            slot.ready.reset();
            slot.starting = true;
            break;
        }
        if (due.empty()) {
            if (next == Steady::time_point::max())
                m_spareCv.wait(lock);
            else
                m_spareCv.wait_until(lock, next);
            continue;
        }
        lock.unlock();
        if (old) {
            if (m_options.log) m_options.log("spare sandbox " + old->id + " replaced (its age)");
            discard(*old);
        }
        SandboxSpec spec;
        spec.templateId = due;
        Started started = launch(spec);
        if (m_options.log) {
            if (started.sandbox)
                m_options.log("spare sandbox " + started.sandbox->id + " started ahead for " +
                              "template " + due + ": listed once a create takes it (serve " +
                              "--no-spare: none)");
            else
                m_options.log("spare sandbox for template " + due +
                              " did not start: " + started.message);
        }
        lock.lock();
        SpareSlot& slot = m_spares[due];
        slot.starting = false;
        if (!started.sandbox) {
            slot.failed = true;
        } else if (m_sparesStopping) {
            lock.unlock();
            discard(*started.sandbox);
            lock.lock();
        } else {
            slot.ready = std::move(started.sandbox);
            slot.since = Steady::now();
        }
        m_spareCv.notify_all(); // a create may wait for it
    }
}

void Api::stopSpares()
{
    {
        std::lock_guard lock(m_mutex);
        m_sparesStopping = true;
    }
    m_spareCv.notify_all();
    if (m_spareThread.joinable()) m_spareThread.join();
    std::vector<std::shared_ptr<Sandbox>> ready;
    {
        std::lock_guard lock(m_mutex);
        for (auto& [templateId, slot] : m_spares)
            if (slot.ready) ready.push_back(std::move(slot.ready));
    }
    for (const auto& s : ready) {
        discard(*s);
        if (m_options.log) m_options.log("spare sandbox " + s->id + " stopped");
    }
}

} // namespace sb::e2b
