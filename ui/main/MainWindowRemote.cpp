// The Replay tab of a remote session (issue 40): its recording is in its host's database, so it
// is fetched over the host's connection as a database of its own (`sandbench-cli export SESSION
// --format sqlite`, written to a file here off the GUI thread) and played by the same replay as
// a local recording.
#include "MainWindow.h"
#include "hosts/HostList.h"
#include "hosts/RemoteHostLink.h"
#include "replay/ReplayView.h"
#include "sessions/SessionHub.h"
#include "sessions/SessionKey.h"

#include <QFile>

namespace sbui {
namespace {

// A recording larger than this in its host's database is not fetched: it would take long and
// fill memory on the way (`sandbench-cli --host … replay` plays it from there).
constexpr qint64 kMaxFetchBytes = 256LL << 20;

void removeDatabase(const QString& file)
{
    for (const char* suffix : {"", "-wal", "-shm"})
        QFile::remove(file + QLatin1String(suffix));
}

} // namespace

void MainWindow::openRemoteReplay(bool asked)
{
    const SessionKey key = SessionKey::parse(m_current);
    if (m_fetchedKey == m_current && m_replay->sessionId() == key.id) return; // shown already
    const quint64 fetch = ++m_replayFetch;
    const QString host = HostList::displayName(key.host);
    RemoteHostLink* link = m_hub->host(key.host);
    if (!link) {
        m_replay->showNotice(tr("%1 is not among the hosts").arg(key.host), true);
        return;
    }
    if (link->state() != RemoteHostLink::State::Connected) {
        m_replay->showNotice(tr("Not connected to %1: its recordings are read through the "
                                "connection.")
                                 .arg(host),
                             true);
        return;
    }
    const RemoteHostLink::Recorded* recorded = link->recordedSession(key.id);
    if (!recorded && !asked) {
        // Ended a moment ago: its size is known once the host lists it.
        m_replay->showNotice(tr("Asking %1 for the recording of %2…").arg(host, key.id));
        connect(
            link, &RemoteHostLink::recordedRead, this,
            [this, fetch, shown = m_current] {
                if (fetch == m_replayFetch && shown == m_current &&
                    m_tabs->currentWidget() == m_replay)
                    openRemoteReplay(true);
            },
            Qt::SingleShotConnection);
        link->askRecorded();
        return;
    }
    if (!recorded) {
        m_replay->showNotice(tr("%1 lists no recording of session %2.").arg(host, key.id), true);
        return;
    }
    if (recorded && recorded->storedBytes > kMaxFetchBytes) {
        m_replay->showNotice(
            tr("The recording of %1 on %2 is too large to fetch (%3 MB, at most %4 MB here): "
               "sandbench-cli --host %5 replay %1 plays it from there.")
                .arg(key.id, host)
                .arg(recorded->storedBytes >> 20)
                .arg(kMaxFetchBytes >> 20)
                .arg(key.host),
            true);
        return;
    }
    if (!m_fetchDir) m_fetchDir = std::make_unique<QTemporaryDir>();
    const QString file = m_fetchDir->filePath(QStringLiteral("recording-%1.db").arg(fetch));
    m_replay->showNotice(tr("Fetching the recording of %1 from %2…").arg(key.id, host));
    const QString shown = m_current;
    link->captureToFile(
        {QStringLiteral("export"), key.id, QStringLiteral("--format"), QStringLiteral("sqlite")},
        file, this, [this, fetch, file, shown, host, id = key.id](const auto& run) {
            if (fetch != m_replayFetch || shown != m_current) return removeDatabase(file);
            if (!run.error.isEmpty() || run.status != 0) {
                removeDatabase(file);
                const QString why = !run.error.isEmpty() ? run.error
                                    : !run.err.isEmpty() ? run.err
                                                         : tr("exit status %1").arg(run.status);
                m_replay->showNotice(
                    tr("The recording could not be fetched from %1: %2").arg(host, why), true);
                return;
            }
            m_replay->close();
            if (!m_fetchedFile.isEmpty()) removeDatabase(m_fetchedFile);
            m_fetchedFile = file;
            m_fetchedKey = shown;
            QString error;
            if (!m_replay->open(id, &error, file, shown)) m_replay->showNotice(error, true);
        });
}

} // namespace sbui
