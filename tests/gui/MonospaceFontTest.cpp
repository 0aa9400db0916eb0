// The terminal's font (issue 33, item 16): monospace is measured, not read from a family's
// fixed-pitch flag, which Noto Sans Mono (the monospace font of most Debian and Ubuntu desktops)
// does not set. Every measured monospace family may be the terminal's: it stays so through a
// save and a load, and a Settings dialog opened on it has nothing to apply.
#include "terminal/MonospaceFont.h"

#include "GuiTestSupport.h"
#include "settings/Settings.h"
#include "settings/SettingsDialog.h"

#include <QCoreApplication>
#include <QFontDatabase>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace sbgt;
using sbui::Settings;
using sbui::SettingsDialog;
using sbui::SettingsValues;

class MonospaceFontTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        // QSettings under the world's HOME, as in SettingsTest.
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("sandbench"));
        QVERIFY(m_world.isValid());
        QVERIFY2(QSettings().fileName().startsWith(m_world.home()),
                 qPrintable(QSettings().fileName()));
    }

    void measuredNotFlagged()
    {
        const QStringList families = QFontDatabase::families();
        if (families.contains(QStringLiteral("Noto Sans Mono")))
            QVERIFY(sbui::isMonospaceFamily(QStringLiteral("Noto Sans Mono")));
        if (families.contains(QStringLiteral("DejaVu Sans")))
            QVERIFY(!sbui::isMonospaceFamily(QStringLiteral("DejaVu Sans")));
        QVERIFY(sbui::hasFixedAdvance(sbui::monospaceFont()));
        QVERIFY(sbui::isMonospaceFamily(Settings::defaults().fontFamily));
    }

    void everyMonospaceFamilyCanBeTheTerminals()
    {
        int monospace = 0;
        for (const QString& family : QFontDatabase::families()) {
            if (!sbui::isMonospaceFamily(family)) continue;
            ++monospace;
            SettingsValues v = Settings::defaults();
            v.fontFamily = family;
            QString error;
            QVERIFY2(Settings::save(v, &error), qPrintable(error));
            QCOMPARE(Settings::load().fontFamily, family);
            Settings::instance().reload();
            SettingsDialog dialog(Settings::instance());
            QVERIFY2(
                !dialog.button(QDialogButtonBox::Apply)->isEnabled(),
                qPrintable(family + QStringLiteral(" shown as ") + dialog.values().fontFamily));
        }
        QVERIFY(monospace > 0);
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(MonospaceFontTest)
#include "MonospaceFontTest.moc"
