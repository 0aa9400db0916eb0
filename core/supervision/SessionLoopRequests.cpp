// What control clients ask of the session beyond its terminal: programs' processes and files
// (ExecService), port previews (PortService), snapshots while it runs (LoopOptions::snapshot),
// pausing it (LoopOptions::pause) and code interpreters' executions to record, on the loop's
// thread.
#include "base/ActivityKinds.h"
#include "recording/CodeExecution.h"
#include "secrets/SecretValues.h"
#include "supervision/SessionLoop.h"

namespace sb {

Status SessionLoop::clientRequest(std::uint64_t client, const std::string& name,
                                  proto::Message& request)
{
    if (request.type == proto::MsgType::SnapshotRequest) return takeSnapshot(client, name, request);
    if (request.type == proto::MsgType::PauseRequest) return pauseOrResume(client, name, request);
    if (request.type == proto::MsgType::ExecutionRecord)
        return recordExecution(client, name, request);
    if (request.type == proto::MsgType::PortRequest) {
        if (!m_ports) return unsupported("this session's sandbox cannot forward ports");
        return m_ports->request(client, name, request.body);
    }
    if (!m_programs) return SessionBackend::clientRequest(client, name, request);
    return m_programs->request(client, name, request);
}

Status SessionLoop::takeSnapshot(std::uint64_t client, const std::string& by,
                                 const proto::Message& request)
{
    if (!request.body.contains("id") || !request.body["id"].is_number_unsigned())
        return inputError("snapshot_request needs a numeric \"id\"");
    if (!m_options.snapshot) return unsupported("this session takes no snapshots while it runs");
    auto taken = m_options.snapshot(request.body.value("name", std::string()));
    if (!taken) return taken.error();
    nlohmann::json event = *taken;
    event["kind"] = activity::kSnapshot;
    event["by"] = by;
    emit(std::move(event));
    if (m_control)
        m_control->sendTo(client, proto::encodeJson(proto::MsgType::SnapshotReply,
                                                    {{"id", request.body["id"]},
                                                     {"ok", true},
                                                     {"snapshot", std::move(*taken)}}));
    return {};
}

Status SessionLoop::pauseOrResume(std::uint64_t client, const std::string& by,
                                  const proto::Message& request)
{
    if (!request.body.contains("id") || !request.body["id"].is_number_unsigned())
        return inputError("pause_request needs a numeric \"id\"");
    if (!request.body.contains("paused") || !request.body["paused"].is_boolean())
        return inputError("pause_request needs \"paused\": true or false");
    if (!m_options.pause) return unsupported("this session cannot be paused");
    const bool paused = request.body["paused"].get<bool>();
    if (auto e = m_options.pause(paused)) return *e;
    emit({{"kind", activity::kLifecycle}, {"type", paused ? "paused" : "resumed"}, {"detail", by}});
    if (m_control)
        m_control->sendTo(
            client,
            proto::encodeJson(proto::MsgType::PauseReply,
                              {{"id", request.body["id"]}, {"ok", true}, {"paused", paused}}));
    return {};
}

namespace {

// Every text of a recorded execution with the session's secrets' values replaced by their names,
// as any text that could carry one (a picture's base64 is no text).
void redactTexts(nlohmann::json& j, const std::vector<ResolvedSecret>& secrets)
{
    if (j.is_string()) {
        j = redactSecrets(j.get<std::string>(), secrets);
    } else if (j.is_array()) {
        for (auto& item : j)
            redactTexts(item, secrets);
    } else if (j.is_object()) {
        for (auto& [key, value] : j.items())
            if (key != "base64" && key != "mime") redactTexts(value, secrets);
    }
}

} // namespace

Status SessionLoop::recordExecution(std::uint64_t client, const std::string& by,
                                    const proto::Message& request)
{
    if (!request.body.contains("id") || !request.body["id"].is_number_unsigned())
        return inputError("execution_record needs a numeric \"id\"");
    if (!request.body.contains("execution"))
        return inputError("execution_record needs an \"execution\" object");
    auto event = recordedExecution(request.body["execution"]);
    if (!event) return event.error();
    if (m_options.intercept && !m_options.intercept->scan().empty())
        redactTexts(*event, m_options.intercept->scan().secrets());
    (*event)["kind"] = activity::kExecution;
    (*event)["by"] = by;
    emit(std::move(*event));
    // "Recorded" means in the database: the client (serve) tells its own client the execution
    // ended only after this answer, so `show` right after runCode finds it. The loop goes on
    // meanwhile; the recording's thread hands the answer back once it has committed.
    auto answer = [this, client, id = request.body["id"]] {
        if (m_control)
            m_control->sendTo(client, proto::encodeJson(proto::MsgType::ExecutionRecorded,
                                                        {{"id", id}, {"ok", true}}));
    };
    if (!m_options.recorder) {
        answer();
        return {};
    }
    m_options.recorder->whenCommitted([mailbox = m_mailbox, answer] {
        std::lock_guard lock(mailbox->mutex);
        if (mailbox->loop == nullptr) return; // the session ended: so did the client's wait
        ApprovalEvent e;
        e.onLoop = answer;
        mailbox->loop->queue(std::move(e));
    });
    return {};
}

void SessionLoop::clientGone(std::uint64_t client)
{
    if (m_programs) m_programs->clientGone(client);
}

} // namespace sb
