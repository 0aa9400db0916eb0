#include "supervision/SessionReview.h"

#include "base/ActivityKinds.h"
#include "recording/RecordingStore.h"

namespace sb {

namespace {

// The project the session's recording says it was started on: its own row, or for a fork that
// never ran, the row of the session it was forked from. Empty when nothing recorded it.
std::string recordedProject(const SessionInfo& session, RecordingStore& store)
{
    std::string id = session.id, forkedFrom = session.forkedFrom;
    for (int hops = 0; hops < 16 && !id.empty(); ++hops) {
        if (auto row = store.session(id)) return row->workspace;
        if (forkedFrom.empty()) break;
        id = forkedFrom.substr(0, forkedFrom.find('@'));
        auto origin = loadSession(id);
        forkedFrom = origin ? origin->forkedFrom : std::string();
    }
    return {};
}

} // namespace

Status checkRecordedProject(const SessionInfo& session, const std::filesystem::path& recordingsDb)
{
    auto store = RecordingStore::open(recordingsDb);
    if (!store) return {}; // no recordings at all: nothing to compare with
    const std::string recorded = recordedProject(session, *store);
    if (recorded.empty() || recorded == session.project.string()) return {};
    return Error{ErrorCode::Conflict, 0,
                 "session " + session.id + "'s session.json names the project " +
                     session.project.string() + ", but its recording says it was started on " +
                     recorded + ": refusing to write there (was the session folder changed?)"};
}

Result<ApplyReport> applySessionChanges(const SessionInfo& session, ApplyOptions options,
                                        const std::filesystem::path& recordingsDb,
                                        std::string* recordError)
{
    if (auto e = checkRecordedProject(session, recordingsDb)) return *e;
    auto rules = sessionRunLaterRules(session);
    if (!rules) return rules.error();
    options.runLater = std::move(*rules);
    if (options.sessionStartNs == 0) options.sessionStartNs = session.changesBaseNs();
    auto report = applyChanges(session.upperDir(), session.project, options);
    if (!report || report->held.empty() || options.dryRun) return report;
    auto store = RecordingStore::open(recordingsDb);
    Status recorded = store ? Status{} : Status{store.error()};
    for (std::size_t i = 0; !recorded && i < report->held.size(); ++i)
        recorded = store->appendReviewEvent(session.id, EventKind::WorkspaceChange,
                                            {{"kind", activity::kFile},
                                             {"change", "held"},
                                             {"path", report->held[i].path},
                                             {"run_later", report->held[i].reason},
                                             {"by", "apply"}});
    if (recorded && recordError) *recordError = recorded->describe();
    return report;
}

} // namespace sb
