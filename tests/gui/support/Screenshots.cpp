#include "Screenshots.h"

#include "settings/Language.h"

#include <QDir>
#include <QSize>
#include <QTest>
#include <QWidget>

namespace sbgt {
namespace {

QString shotLanguage()
{
    const QString language = qEnvironmentVariable("SANDBENCH_SHOTS_LANG");
    return language.isEmpty() ? QStringLiteral("en") : language;
}

} // namespace

void installShotLanguage()
{
    if (qEnvironmentVariableIsSet("SANDBENCH_SHOTS")) sbui::installTranslations(shotLanguage());
}

void screenshot(QWidget& widget, const QString& name)
{
    const QString folder = qEnvironmentVariable("SANDBENCH_SHOTS");
    if (folder.isEmpty()) return;
    QDir().mkpath(folder);
    const QSize was = widget.size();
    for (const QSize size : {QSize(1440, 900), QSize(1024, 700)}) {
        widget.resize(size);
        QTest::qWait(300); // layouts, elisions and the docks settle
        const QString file = QStringLiteral("%1/%2-%3-%4x%5.png")
                                 .arg(folder, name, shotLanguage())
                                 .arg(size.width())
                                 .arg(size.height());
        if (!widget.grab().save(file)) qWarning("cannot save %s", qPrintable(file));
    }
    widget.resize(was);
    QTest::qWait(100);
}

void screenshotAsIs(QWidget& widget, const QString& name)
{
    const QString folder = qEnvironmentVariable("SANDBENCH_SHOTS");
    if (folder.isEmpty()) return;
    QDir().mkpath(folder);
    QTest::qWait(300);
    const QString file = QStringLiteral("%1/%2-%3.png").arg(folder, name, shotLanguage());
    if (!widget.grab().save(file)) qWarning("cannot save %s", qPrintable(file));
}

} // namespace sbgt
