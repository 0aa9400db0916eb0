#include "WorkspaceEditor.h"

#include "ConflictText.h"
#include "supervision/SessionReview.h"
#include "workspace/Workspace.h"

#include <unistd.h>

namespace sbui {
namespace {

std::vector<std::string> toStd(const QStringList& paths)
{
    std::vector<std::string> out;
    for (const QString& p : paths)
        out.push_back(p.toStdString());
    return out;
}

QList<EditIssue> toIssues(const std::vector<sb::ApplyIssue>& issues)
{
    QList<EditIssue> out;
    for (const auto& i : issues)
        out.append({QString::fromStdString(i.path), ConflictText::of(i)});
    return out;
}

QStringList toQt(const std::vector<std::string>& paths)
{
    QStringList out;
    for (const auto& p : paths)
        out.append(QString::fromStdString(p));
    return out;
}

// The session's lock for the time of an edit, or the core's reason why not.
class SessionHold {
  public:
    explicit SessionHold(const sb::SessionInfo& session)
    {
        if (auto e = sb::checkWorkspaceEditable(session)) {
            m_error = QString::fromStdString(e->describe());
            return;
        }
        auto lock = sb::lockSession(session);
        if (!lock)
            m_error = QString::fromStdString(lock.error().describe());
        else
            m_lock = std::move(*lock);
    }
    const QString& error() const { return m_error; }

  private:
    sb::UniqueFd m_lock;
    QString m_error;
};

} // namespace

WorkspaceEditor::WorkspaceEditor(QObject* parent) : QObject(parent) {}

WorkspaceEditor::~WorkspaceEditor() = default;

void WorkspaceEditor::apply(const sb::SessionInfo& session, const QStringList& paths, bool force,
                            bool runLater)
{
    m_busy = true;
    m_queue.run(
        this,
        [this, session, paths = toStd(paths), force, runLater] {
            EditOutcome out;
            out.operation = EditOutcome::Operation::Apply;
            out.forced = force;
            SessionHold hold(session);
            if (!hold.error().isEmpty()) {
                out.error = hold.error();
                return out;
            }
            sb::ApplyOptions options;
            options.paths = paths;
            options.force = force;
            options.sessionStartNs = session.changesBaseNs();
            options.includeRunLater = runLater;
            int lastPercent = -1;
            options.progress = [this, &lastPercent](std::size_t done, std::size_t total) {
                const int percent = static_cast<int>(done * 100 / std::max<std::size_t>(total, 1));
                if (percent == lastPercent) return;
                lastPercent = percent;
                QMetaObject::invokeMethod(
                    this,
                    [this, done, total] {
                        emit progress(static_cast<int>(done), static_cast<int>(total));
                    },
                    Qt::QueuedConnection);
            };
            auto report = sb::applySessionChanges(session, options);
            if (!report) {
                out.error = QString::fromStdString(report.error().describe());
                return out;
            }
            out.done = toQt(report->applied);
            out.conflicts = toIssues(report->conflicts);
            out.skipped = toIssues(report->skipped);
            out.held = toIssues(report->held);
            return out;
        },
        [this](EditOutcome outcome) { finish(std::move(outcome)); });
}

void WorkspaceEditor::discard(const sb::SessionInfo& session, const QStringList& paths)
{
    m_busy = true;
    m_queue.run(
        this,
        [session, paths = toStd(paths)] {
            EditOutcome out;
            out.operation = EditOutcome::Operation::Discard;
            SessionHold hold(session);
            if (!hold.error().isEmpty()) {
                out.error = hold.error();
                return out;
            }
            auto discarded = sb::discardChanges(session.upperDir(), paths);
            if (!discarded)
                out.error = QString::fromStdString(discarded.error().describe());
            else
                out.done = toQt(*discarded);
            return out;
        },
        [this](EditOutcome outcome) { finish(std::move(outcome)); });
}

void WorkspaceEditor::finish(EditOutcome outcome)
{
    m_busy = false;
    emit finished(outcome);
}

} // namespace sbui
