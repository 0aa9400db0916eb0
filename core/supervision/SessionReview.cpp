#include "supervision/SessionReview.h"

#include "base/ActivityKinds.h"
#include "recording/RecordingStore.h"

namespace sb {

Result<ApplyReport> applySessionChanges(const SessionInfo& session, ApplyOptions options,
                                        const std::filesystem::path& recordingsDb,
                                        std::string* recordError)
{
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
