// Recording retention for the window: core's gc (RecordingStore::gc) on a worker thread, to
// delete the ended recordings beyond the limits, or only to say what it would delete and how
// much the recordings use. Sessions still running are never touched (core's rule).
#pragma once

#include "files/TaskQueue.h"

#include <QObject>
#include <QString>
#include <QStringList>

namespace sbui {

struct CleanupResult {
    bool dryRun = false;
    QString error; // empty on success
    QStringList removed;
    quint64 freedBytes = 0, keptBytes = 0;
    quint64 fileBytes = 0; // the database on disk (sb::GcReport::fileBytes)
};

class RecordingCleaner : public QObject {
    Q_OBJECT
  public:
    explicit RecordingCleaner(QObject* parent = nullptr);
    ~RecordingCleaner() override;

    // Deletes (or with dryRun only lists) the recordings older than `keepDays` and then the
    // oldest beyond `keepSizeMb` in total; 0 = no limit. finished() reports on this thread,
    // for every deleting run and for the newest dry run (an older one's answer is stale).
    void clean(int keepDays, int keepSizeMb, bool dryRun);
    bool isBusy() const { return m_running > 0; }

    // "12.3 MiB" (binary units, as `sandbench-cli gc` says them), in the window's locale.
    static QString formatBytes(quint64 bytes);

  Q_SIGNALS:
    void finished(const sbui::CleanupResult& result);

  private:
    int m_running = 0;
    quint64 m_dryRuns = 0; // requested so far
    TaskQueue m_queue;     // last: joined before the rest goes
};

} // namespace sbui
