#include "RecordingCleaner.h"

#include "recording/RecordingStore.h"

#include <QLocale>
#include <filesystem>

namespace sbui {

RecordingCleaner::RecordingCleaner(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<sbui::CleanupResult>();
}

RecordingCleaner::~RecordingCleaner() = default;

void RecordingCleaner::clean(int keepDays, int keepSizeMb, bool dryRun)
{
    sb::RetentionLimits limits;
    limits.maxAgeDays = static_cast<std::uint64_t>(std::max(0, keepDays));
    limits.maxSizeMb = static_cast<std::uint64_t>(std::max(0, keepSizeMb));
    sb::GcOptions options = limits.toGcOptions();
    options.dryRun = dryRun;
    const quint64 generation = dryRun ? ++m_dryRuns : 0;
    ++m_running;
    m_queue.run(
        this,
        [options] {
            CleanupResult result;
            result.dryRun = options.dryRun;
            // Nothing recorded yet: nothing to delete, and no database to create for it.
            std::error_code ec;
            if (!std::filesystem::exists(sb::defaultRecordingsPath(), ec)) return result;
            auto store = sb::RecordingStore::open();
            if (!store) {
                result.error = QString::fromStdString(store.error().describe());
                return result;
            }
            auto report = store->gc(options);
            if (!report) {
                result.error = QString::fromStdString(report.error().describe());
                return result;
            }
            for (const std::string& id : report->removed)
                result.removed << QString::fromStdString(id);
            result.freedBytes = report->freedBytes;
            result.keptBytes = report->keptBytes;
            result.fileBytes = report->fileBytes;
            return result;
        },
        [this, generation](CleanupResult result) {
            --m_running;
            if (result.dryRun && generation != m_dryRuns) return;
            Q_EMIT finished(result);
        });
}

QString RecordingCleaner::formatBytes(quint64 bytes)
{
    if (bytes < 1024) return QStringLiteral("%1 B").arg(bytes); // as the CLI says it
    return QLocale().formattedDataSize(static_cast<qint64>(bytes), 1, QLocale::DataSizeIecFormat);
}

} // namespace sbui
