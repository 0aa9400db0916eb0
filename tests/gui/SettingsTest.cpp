// Settings…: defaults, storage in a private XDG config folder, the dialog's OK/Cancel/Apply and
// Restore defaults, and what each setting changes: the open terminals' font and scrollback,
// desktop notifications, the New session dialog's preset and approval timeout, recording
// retention (at start and when changed) and the language (setting, --lang, SANDBENCH_LANG).
#include "settings/Settings.h"

#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "files/FileReviewPanel.h"
#include "main/DesktopNotifier.h"
#include "main/MainWindow.h"
#include "main/Prompt.h"
#include "recording/RecordingStore.h"
#include "recording/RecordingWriter.h"
#include "replay/ReplayView.h"
#include "sessions/NewSessionDialog.h"
#include "sessions/SessionHub.h"
#include "settings/Language.h"
#include "settings/RecordingCleaner.h"
#include "settings/SettingsDialog.h"
#include "terminal/MonospaceFont.h"
#include "terminal/TerminalWidget.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QLibraryInfo>
#include <QLocale>
#include <QMenuBar>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <chrono>

using namespace sbgt;
using sbui::Settings;
using sbui::SettingsDialog;
using sbui::SettingsValues;

namespace {

const QByteArray kAskTouch = R"({
  "version": 1,
  "network": {"mode": "none"},
  "commands": {"default": "allow", "rules": [{"action": "ask", "match": "touch *"}]},
  "approvals": {"timeout_seconds": 600, "on_timeout": "deny"}
})";

// A monospace family other than `family`, or empty when the machine has only one.
QString otherMonospaceFamily(const QString& family)
{
    for (const QString& f : QFontDatabase::families())
        if (f != family && sbui::isMonospaceFamily(f) && !QFontDatabase::isPrivateFamily(f))
            return f;
    return {};
}

// An ended recording that started `ageDays` ago.
bool recordSession(const QString& id, int ageDays)
{
    using namespace std::chrono;
    sb::SessionRecordInfo info;
    info.id = id.toStdString();
    info.command = {"bash", "-c", "echo hello"};
    info.workspace = "/tmp";
    info.startedNs = duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count() -
                     static_cast<std::int64_t>(ageDays) * 86400 * 1'000'000'000;
    auto writer = sb::RecordingWriter::start(sb::defaultRecordingsPath(), info);
    if (!writer) return false;
    writer.value()->terminalOutput("hello from " + info.id + "\r\n");
    return !writer.value()->finish(0);
}

QStringList recordedIds()
{
    QStringList ids;
    auto store = sb::RecordingStore::open();
    if (!store) return ids;
    if (auto sessions = store->sessions())
        for (const auto& s : *sessions)
            ids << QString::fromStdString(s.id);
    ids.sort();
    return ids;
}

QStringList menuTitles(const sbui::MainWindow& window)
{
    QStringList titles;
    for (const QAction* a : window.menuBar()->actions())
        titles << a->text();
    return titles;
}

struct GuiRun {
    int exitCode = -1;
    QString out, err;
};

// The built `sandbench` with `args` and extra environment (an empty value unsets), as a user
// would start it.
GuiRun runGui(const QStringList& args, const QMap<QString, QString>& env = {})
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG", "SANDBENCH_LANG"})
        e.remove(QString::fromLatin1(name));
    e.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    for (auto it = env.begin(); it != env.end(); ++it)
        e.insert(it.key(), it.value());
    p.setProcessEnvironment(e);
    p.start(guiPath(), args);
    GuiRun run;
    if (!p.waitForFinished(60000)) return run;
    run.exitCode = p.exitCode();
    run.out = QString::fromUtf8(p.readAllStandardOutput());
    run.err = QString::fromUtf8(p.readAllStandardError());
    return run;
}

} // namespace

class SettingsTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        // QSettings under $HOME/.qttest (HOME is the world's), core's files under its XDG dirs;
        // the organisation named as the program names it (without one, QSettings reports the
        // organisation-wide file it cannot write as an error).
        sbgt::installShotLanguage();
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("sandbench"));
        QVERIFY(m_world.isValid());
        QVERIFY2(QSettings().fileName().startsWith(m_world.home()),
                 qPrintable(QSettings().fileName()));
    }

    void init()
    {
        QSettings().clear();
        QFile::remove(QString::fromStdString(sb::retentionConfigPath().string()));
        for (const char* suffix : {"", "-wal", "-shm"})
            QFile::remove(QString::fromStdString(sb::defaultRecordingsPath().string()) +
                          QLatin1String(suffix));
        Settings::instance().reload();
        sbui::installTranslations(QStringLiteral("en"));
        sbui::prompt::setNextAnswer(std::nullopt);
    }

    void defaults()
    {
        const SettingsValues d = Settings::defaults();
        QCOMPARE(d.scrollbackLines, 10000);
        QCOMPARE(d.defaultPreset, QStringLiteral("generic"));
        QCOMPARE(d.approvalTimeoutSeconds, 0); // the policy's own
        QVERIFY(d.desktopNotifications);
        QCOMPARE(d.keepDays, 90);
        QCOMPARE(d.keepSizeMb, 2048);
        QCOMPARE(d.language, QString());
        QVERIFY2(sbui::isMonospaceFamily(d.fontFamily), qPrintable(d.fontFamily));
        QVERIFY(d.fontSize > 0);
        QVERIFY(Settings::load() == d); // nothing stored yet
        QVERIFY(Settings::instance().values() == d);
    }

    void saveAndLoadRoundTrip()
    {
        SettingsValues v = Settings::defaults();
        v.fontSize = 15;
        v.scrollbackLines = 2500;
        v.defaultPreset = QStringLiteral("offline");
        v.approvalTimeoutSeconds = 45;
        v.desktopNotifications = false;
        v.keepDays = 30;
        v.keepSizeMb = 512;
        v.language = QStringLiteral("de");
        QString error;
        QVERIFY2(Settings::save(v, &error), qPrintable(error));
        QVERIFY(Settings::load() == v);
        // Retention is where `sandbench-cli gc` reads it, in the private config folder.
        auto limits = sb::loadRetentionLimits();
        QVERIFY(limits);
        QCOMPARE(limits->maxAgeDays, std::uint64_t(30));
        QCOMPARE(limits->maxSizeMb, std::uint64_t(512));
        QVERIFY(
            QString::fromStdString(sb::retentionConfigPath().string()).startsWith(m_world.root()));

        // Stored values that make no sense fall back to the defaults, one by one.
        QSettings s;
        s.setValue(QStringLiteral("terminal/scrollback_lines"), -5);
        s.setValue(QStringLiteral("new_session/preset"), QStringLiteral("no-such-preset"));
        s.setValue(QStringLiteral("ui/language"), QStringLiteral("tlh"));
        s.setValue(QStringLiteral("terminal/font_family"), QStringLiteral("No Such Font 12345"));
        s.sync();
        const SettingsValues loaded = Settings::load();
        const SettingsValues d = Settings::defaults();
        QCOMPARE(loaded.scrollbackLines, d.scrollbackLines);
        QCOMPARE(loaded.defaultPreset, d.defaultPreset);
        QCOMPARE(loaded.language, d.language);
        QCOMPARE(loaded.fontFamily, d.fontFamily);
        QCOMPARE(loaded.approvalTimeoutSeconds, 45);
    }

    // The dialog shows the font the settings hold, even one its monospace list leaves out,
    // and hands it back unchanged when nothing was edited.
    void dialogShowsTheStoredFont()
    {
        for (const QString& family : QFontDatabase::families()) {
            SettingsValues v = Settings::defaults();
            v.fontFamily = family;
            SettingsDialog dialog(Settings::instance());
            dialog.setValues(v);
            QCOMPARE(dialog.fontBox()->currentText(), family);
            QCOMPARE(dialog.values().fontFamily, family);
        }
    }

    // Apply changes the window's terminals at once; Cancel drops what was not applied; OK
    // stores and closes.
    void dialogAppliesToOpenTerminals()
    {
        sbui::MainWindow window;
        SettingsDialog dialog(Settings::instance(), &window);
        QVERIFY2(!dialog.button(QDialogButtonBox::Apply)->isEnabled(),
                 qPrintable(dialog.values().fontFamily + QStringLiteral(" stored ") +
                            Settings::instance().values().fontFamily)); // nothing edited yet
        const QString family = otherMonospaceFamily(window.terminal()->terminalFont().family());
        if (!family.isEmpty()) dialog.fontBox()->setCurrentText(family);
        dialog.fontSizeBox()->setValue(17);
        dialog.scrollbackBox()->setValue(2500);
        QVERIFY(dialog.button(QDialogButtonBox::Apply)->isEnabled());
        QCOMPARE(window.terminal()->scrollbackLines(), 10000); // not before Apply
        QTest::mouseClick(dialog.button(QDialogButtonBox::Apply), Qt::LeftButton);

        for (sbui::TerminalWidget* t : {window.terminal(), window.replay()->terminal()}) {
            QCOMPARE(t->terminalFont().pointSize(), 17);
            QCOMPARE(t->scrollbackLines(), 2500);
            if (!family.isEmpty()) QCOMPARE(t->terminalFont().family(), family);
        }
        QCOMPARE(Settings::load().scrollbackLines, 2500); // stored
        QVERIFY(!dialog.button(QDialogButtonBox::Apply)->isEnabled());

        dialog.scrollbackBox()->setValue(300);
        QTest::mouseClick(dialog.button(QDialogButtonBox::Cancel), Qt::LeftButton);
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
        QCOMPARE(window.terminal()->scrollbackLines(), 2500);

        SettingsDialog again(Settings::instance(), &window);
        QCOMPARE(again.scrollbackBox()->value(), 2500); // shows what is stored
        again.scrollbackBox()->setValue(0);
        QTest::mouseClick(again.button(QDialogButtonBox::Ok), Qt::LeftButton);
        QCOMPARE(again.result(), int(QDialog::Accepted));
        QCOMPARE(window.terminal()->scrollbackLines(), 0);
    }

    // Edit → Settings… (Ctrl+,) opens the dialog; the test hook answers it.
    void menuOpensTheDialog()
    {
        sbui::MainWindow window;
        QAction* action = nullptr;
        for (QAction* a : window.findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(QStringLiteral("Ctrl+,"))) action = a;
        QVERIFY(action);
        QVERIFY(window.menuBar()->actions().size() >= 2);
        int opened = 0;
        window.setSettingsHook([&](SettingsDialog& dialog) {
            ++opened;
            dialog.scrollbackBox()->setValue(1234);
            return true;
        });
        action->trigger();
        QCOMPARE(opened, 1);
        QCOMPARE(window.terminal()->scrollbackLines(), 1234);
        window.setSettingsHook([&](SettingsDialog& dialog) {
            dialog.scrollbackBox()->setValue(99);
            return false; // Cancel
        });
        action->trigger();
        QCOMPARE(window.terminal()->scrollbackLines(), 1234);
    }

    // Issue 37, item 11: in German, the settings' Apply and the Changes tab's Apply are
    // different words ("Übernehmen" meant both).
    void applyIsItsOwnWordInGerman()
    {
        QVERIFY(sbui::installTranslations(QStringLiteral("de")));
        auto english = qScopeGuard([] { sbui::installTranslations(QStringLiteral("en")); });
        sbui::SettingsDialog dialog(sbui::Settings::instance());
        sbui::FileReviewPanel review;
        const QString settings = dialog.button(QDialogButtonBox::Apply)->text().remove(u'&');
        const QString changes = review.applyAction()->text().remove(u'&');
        QVERIFY2(settings != changes, qPrintable(settings));
        QCOMPARE(settings, QStringLiteral("Anwenden"));
        // "Sprache: System (English)" beside a German window says why (item 11).
        const QString system =
            sbui::chooseLanguage({}, {}, {}, QLocale::system().uiLanguages()).language;
        if (sbui::Settings::instance().values().language.isEmpty() && system != "de")
            QVERIFY2(dialog.languageNote().contains(QLatin1String("Deutsch")),
                     qPrintable(dialog.languageNote()));
        dialog.show();
        screenshotAsIs(dialog, QStringLiteral("settings-apply"));
    }

    void restoreDefaults()
    {
        SettingsValues v = Settings::defaults();
        v.scrollbackLines = 777;
        v.desktopNotifications = false;
        v.defaultPreset = QStringLiteral("codex");
        v.keepDays = 0;
        QVERIFY(Settings::instance().set(v));
        SettingsDialog dialog;
        QCOMPARE(dialog.scrollbackBox()->value(), 777);
        QVERIFY(!dialog.notificationsBox()->isChecked());
        QTest::mouseClick(dialog.button(QDialogButtonBox::RestoreDefaults), Qt::LeftButton);
        QVERIFY(dialog.values() == Settings::defaults());
        QCOMPARE(dialog.scrollbackBox()->value(), 10000);
        QVERIFY(dialog.notificationsBox()->isChecked());
        QCOMPARE(dialog.presetBox()->currentData().toString(), QStringLiteral("generic"));
        QCOMPARE(Settings::instance().values().scrollbackLines, 777); // not before OK or Apply
        QTest::mouseClick(dialog.button(QDialogButtonBox::Ok), Qt::LeftButton);
        QVERIFY(Settings::load() == Settings::defaults());
    }

    // Notifications off: a waiting approval sends nothing to the desktop.
    void notificationsOffSendsNothing()
    {
        sbui::MainWindow window;
        QVERIFY(window.notifier()->isEnabled());
        SettingsDialog dialog(Settings::instance(), &window);
        dialog.notificationsBox()->setChecked(false);
        QVERIFY(dialog.apply());
        QVERIFY(!window.notifier()->isEnabled());
        QVERIFY(!window.notifier()->notify(QStringLiteral("s"), QStringLiteral("t"),
                                           QStringLiteral("b")));
        QCOMPARE(window.notifier()->sentCount(), 0);
    }

    // The same through a real session: the title counts the waiting approval, no notification.
    void notificationsOffWithARealSession()
    {
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
        SettingsValues v = Settings::defaults();
        v.desktopNotifications = false;
        QVERIFY(Settings::instance().set(v));
        QString error;
        auto session =
            HeadlessSession::start(m_world, QStringLiteral("settings-quiet"),
                                   {QStringLiteral("--policy"), m_world.writePolicy(kAskTouch)},
                                   {QStringLiteral("bash"), QStringLiteral("-c"),
                                    QStringLiteral("sleep 1; touch n; sleep 600")},
                                   &error);
        QVERIFY2(session, qPrintable(error));
        sbui::MainWindow window; // never shown, so never active
        QTRY_VERIFY_WITH_TIMEOUT(window.windowTitle().startsWith(QLatin1String("(1 waiting)")),
                                 20000);
        QCOMPARE(window.notifier()->sentCount(), 0);
        window.hub()->kill(session->id());
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(session->id()), 20000);
    }

    // The New session dialog starts from the default preset and approval timeout.
    void newSessionDialogStartsFromTheSettings()
    {
        {
            sbui::NewSessionDialog dialog; // defaults: generic, the policy's timeout (120 s)
            QCOMPARE(dialog.policyBox()->currentData().toString(), QStringLiteral("generic"));
            QCOMPARE(dialog.approvalTimeoutBox()->value(), 120);
        }
        SettingsValues v = Settings::defaults();
        v.defaultPreset = QStringLiteral("offline");
        v.approvalTimeoutSeconds = 45;
        QVERIFY(Settings::instance().set(v));

        sbui::MainWindow window;
        bool seen = false;
        window.setNewSessionHook([&](sbui::NewSessionDialog& dialog) {
            seen = true;
            dialog.setWorkspace(m_world.workspace());
            dialog.setCommand(QStringLiteral("true"));
            [&] {
                QCOMPARE(dialog.policyBox()->currentData().toString(), QStringLiteral("offline"));
                QCOMPARE(dialog.approvalTimeoutBox()->value(), 45);
                const sbui::LaunchRequest r = dialog.request();
                QVERIFY(r.approvalTimeoutSeconds == 45u);
                const QStringList args = sbui::launchArguments(r);
                const auto at = args.indexOf(QStringLiteral("--approval-timeout"));
                QVERIFY2(at > 0 && args.value(at + 1) == QStringLiteral("45"),
                         qPrintable(args.join(QLatin1Char(' '))));
                QVERIFY(checked(dialog));
                QVERIFY2(
                    dialog.effectivePolicyText().contains(QLatin1String("\"timeout_seconds\": 45")),
                    qPrintable(dialog.effectivePolicyText()));
                // A typed value is the session's.
                dialog.approvalTimeoutBox()->setValue(300);
                QVERIFY(checked(dialog));
                QVERIFY(dialog.effectivePolicyText().contains(
                    QLatin1String("\"timeout_seconds\": 300")));
                // Observe mode is a choice of the session, off unless asked for.
                QVERIFY(
                    !sbui::launchArguments(dialog.request()).contains(QStringLiteral("--observe")));
                dialog.observeBox()->setChecked(true);
                QVERIFY(
                    sbui::launchArguments(dialog.request()).contains(QStringLiteral("--observe")));
                sbgt::screenshotAsIs(dialog, QStringLiteral("new-session"));
            }();
            return false; // do not start
        });
        window.newSession();
        QVERIFY(seen);
    }

    // End to end: a session started from the dialog waits as long as the setting says, not
    // the 600 s of its policy file.
    void approvalTimeoutReachesTheSession()
    {
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
        SettingsValues v = Settings::defaults();
        v.approvalTimeoutSeconds = 7;
        QVERIFY(Settings::instance().set(v));
        const QString policy = m_world.writePolicy(kAskTouch, QStringLiteral("ask-touch.json"));
        sbui::MainWindow window;
        window.setNewSessionHook([&](sbui::NewSessionDialog& dialog) {
            dialog.setWorkspace(m_world.workspace());
            dialog.setPolicyFile(policy);
            dialog.setCommand(QStringLiteral("bash -c 'sleep 1; touch t; sleep 600'"));
            return checked(dialog) && dialog.isValid();
        });
        QSignalSpy started(&window, &sbui::MainWindow::sessionStarted);
        window.newSession();
        QTRY_VERIFY2_WITH_TIMEOUT(started.count() == 1, qPrintable(sbui::prompt::lastError()),
                                  20000);
        const QString id = started.at(0).at(0).toString();
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->pending(id).empty(), 20000);
        using namespace std::chrono;
        const auto nowMs =
            duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
        const auto left = window.hub()->pending(id).front().deadlineUnixMs - nowMs;
        QVERIFY2(left > 0 && left <= 7000, qPrintable(QString::number(left)));
        window.hub()->kill(id);
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(id), 20000);
    }

    // Retention: the dialog says what its limits would delete; applying them deletes it, on the
    // cleaner's thread; a window that starts applies the stored limits.
    void retentionPreviewAndApply()
    {
        QVERIFY(recordSession(QStringLiteral("old-one"), 200));
        QVERIFY(recordSession(QStringLiteral("mid-one"), 40));
        QVERIFY(recordSession(QStringLiteral("new-one"), 0));
        SettingsValues v = Settings::defaults();
        v.keepDays = 0; // no limit: nothing goes at the window's start
        v.keepSizeMb = 0;
        QVERIFY(Settings::instance().set(v));

        sbui::MainWindow window;
        QTRY_VERIFY(!window.recordingCleaner()->isBusy());
        QCOMPARE(recordedIds().size(), 3);

        // "In use" says what `sandbench-cli gc` says: the recordings' bytes and the file's.
        QProcess gc;
        gc.start(cliPath(), {QStringLiteral("gc"), QStringLiteral("--dry-run")});
        QVERIFY(gc.waitForFinished(20000));
        const QString said = QString::fromUtf8(gc.readAllStandardOutput());
        const auto match =
            QRegularExpression(QStringLiteral(R"(\((\S+ \S+) in recordings, (\S+ \S+) on disk\))"))
                .match(said);
        QVERIFY2(match.hasMatch(), qPrintable(said));
        const QString inRecordings = match.captured(1), onDisk = match.captured(2);

        SettingsDialog dialog(Settings::instance(), &window);
        QTRY_COMPARE(dialog.retentionLabel()->text(), QStringLiteral("nothing"));
        screenshotAsIs(dialog, QStringLiteral("settings-in-use"));
        QCOMPARE(dialog.retentionUseLabel()->text(),
                 QStringLiteral("%1 in recordings, %2 on disk").arg(inRecordings, onDisk));
        dialog.keepDaysBox()->setValue(30);
        QTRY_VERIFY2(dialog.retentionLabel()->text().startsWith(QLatin1String("2 recording")),
                     qPrintable(dialog.retentionLabel()->text()));
        QCOMPARE(recordedIds().size(), 3); // a preview deletes nothing

        QSignalSpy cleaned(window.recordingCleaner(), &sbui::RecordingCleaner::finished);
        QVERIFY(dialog.apply());
        QTRY_COMPARE(cleaned.count(), 1);
        QCOMPARE(recordedIds(), QStringList{QStringLiteral("new-one")});

        // At the next start, the stored limits apply before anyone opens the dialog.
        QVERIFY(recordSession(QStringLiteral("old-two"), 100));
        sbui::MainWindow next;
        QTRY_VERIFY(!next.recordingCleaner()->isBusy());
        QCOMPARE(recordedIds(), QStringList{QStringLiteral("new-one")});
    }

    // Limits that cannot be read delete nothing: the defaults do not stand in for them.
    void unreadableRetentionDeletesNothing()
    {
        QVERIFY(recordSession(QStringLiteral("ancient"), 400));
        QFile file(QString::fromStdString(sb::retentionConfigPath().string()));
        QVERIFY(QDir().mkpath(QFileInfo(file).path()));
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("{\"max_age_days\": \"soon\"}");
        file.close();
        Settings::instance().reload();
        QVERIFY2(Settings::instance().problem().contains(QLatin1String("max_age_days")),
                 qPrintable(Settings::instance().problem()));
        {
            sbui::MainWindow window;
            QVERIFY(!window.recordingCleaner()->isBusy()); // nothing started
            QCOMPARE(recordedIds(), QStringList{QStringLiteral("ancient")});

            // Saving the settings writes readable limits, which then apply.
            QSignalSpy cleaned(window.recordingCleaner(), &sbui::RecordingCleaner::finished);
            QVERIFY(Settings::instance().set(Settings::instance().values()));
            QVERIFY(Settings::instance().problem().isEmpty());
            QTRY_COMPARE(cleaned.count(), 1);
            QCOMPARE(recordedIds(), QStringList());
        }
    }

    void languageChoice()
    {
        using sbui::chooseLanguage;
        const QStringList german{QStringLiteral("de-DE"), QStringLiteral("de")};
        QCOMPARE(chooseLanguage({}, {}, {}, german).language, QStringLiteral("de"));
        QCOMPARE(chooseLanguage({}, {}, {}, german).source, QStringLiteral("system"));
        // LANGUAGE=fr:de — French is not translated, German is.
        QCOMPARE(
            chooseLanguage({}, {}, {}, {QStringLiteral("fr-FR"), QStringLiteral("de")}).language,
            QStringLiteral("de"));
        // English before German wins.
        QCOMPARE(
            chooseLanguage({}, {}, {}, {QStringLiteral("en-GB"), QStringLiteral("de")}).language,
            QStringLiteral("en"));
        QCOMPARE(chooseLanguage({}, {}, {}, {QStringLiteral("C")}).language, QStringLiteral("en"));
        // The setting beats the system, SANDBENCH_LANG the setting, --lang everything.
        QCOMPARE(chooseLanguage({}, {}, QStringLiteral("en"), german).language,
                 QStringLiteral("en"));
        QCOMPARE(
            chooseLanguage({}, QStringLiteral("de_AT.UTF-8"), QStringLiteral("en"), {}).language,
            QStringLiteral("de"));
        QCOMPARE(
            chooseLanguage(QStringLiteral("en"), QStringLiteral("de"), QStringLiteral("de"), german)
                .language,
            QStringLiteral("en"));
        const auto unknown = chooseLanguage(QStringLiteral("fr"), {}, {}, german);
        QCOMPARE(unknown.language, QStringLiteral("en"));
        QVERIFY(unknown.warning.contains(QLatin1String("'fr'")));
        QCOMPARE(sbui::languageArgument(
                     {QStringLiteral("sandbench"), QStringLiteral("--lang"), QStringLiteral("de")}),
                 QStringLiteral("de"));
        QCOMPARE(sbui::languageArgument({QStringLiteral("sandbench"), QStringLiteral("--lang=de")}),
                 QStringLiteral("de"));
        QCOMPARE(sbui::languageArgument({QStringLiteral("sandbench"), QStringLiteral("--"),
                                         QStringLiteral("--lang=de")}),
                 QString());
    }

    // German in the window: our strings and Qt's standard buttons; back to English.
    void germanWindow()
    {
        QVERIFY(sbui::installTranslations(QStringLiteral("de")));
        {
            sbui::MainWindow window;
            QVERIFY2(menuTitles(window).contains(QStringLiteral("&Sitzung")),
                     qPrintable(menuTitles(window).join(QLatin1Char(' '))));
            QVERIFY(menuTitles(window).contains(QStringLiteral("&Bearbeiten")));
            SettingsDialog dialog(Settings::instance(), &window);
            QCOMPARE(dialog.windowTitle(), QStringLiteral("Einstellungen"));
            // Numbers as German writes them, whatever this machine's locale.
            QCOMPARE(QLocale().toString(10000), QStringLiteral("10.000"));
            QVERIFY2(dialog.scrollbackBox()->text().contains(QLatin1Char('.')) ||
                         dialog.scrollbackBox()->value() < 1000,
                     qPrintable(dialog.scrollbackBox()->text()));
            if (!QFile::exists(QLibraryInfo::path(QLibraryInfo::TranslationsPath) +
                               QStringLiteral("/qtbase_de.qm")))
                SBG_SKIP("Qt's own German translation is not installed (qt6-translations-l10n)");
            QVERIFY(sbui::qtTranslationInstalled());
            QCOMPARE(dialog.button(QDialogButtonBox::Cancel)->text().remove(QLatin1Char('&')),
                     QStringLiteral("Abbrechen"));
        }
        QVERIFY(sbui::installTranslations(QStringLiteral("en")));
        QVERIFY(!QLocale().toString(10000).contains(QLatin1Char('.')));
        // English plurals, not "change(s)".
        auto changes = [](int n) {
            return QCoreApplication::translate("sbui::FileReviewPanel", "%n change(s)", nullptr, n);
        };
        QCOMPARE(changes(1), QStringLiteral("1 change"));
        QCOMPARE(changes(3), QStringLiteral("3 changes"));
        sbui::MainWindow window;
        // The desktop's order, Quit under File.
        QCOMPARE(menuTitles(window),
                 (QStringList{QStringLiteral("&File"), QStringLiteral("&Edit"),
                              QStringLiteral("&Session"), QStringLiteral("&Policy")}));
        QStringList fileItems;
        for (QAction* a : window.menuBar()->actions().front()->menu()->actions())
            fileItems << a->text();
        QVERIFY2(fileItems.contains(QStringLiteral("&Quit")), qPrintable(fileItems.join(u' ')));
    }

    // The program: --lang, SANDBENCH_LANG, the stored setting and the system's language decide
    // what `sandbench --help` speaks.
    void programLanguage()
    {
        const QString english = QStringLiteral("Supervise AI coding agents in a local sandbox.");
        const QString german =
            QStringLiteral("KI-Programmieragenten in einer lokalen Sandbox beaufsichtigen.");
        auto help = [&](const QStringList& args, const QMap<QString, QString>& env) {
            GuiRun run = runGui(QStringList{QStringLiteral("--help")} + args, env);
            [&] { QVERIFY2(run.exitCode == 0, qPrintable(run.err)); }();
            return run.out;
        };
        QVERIFY(help({}, {}).contains(english));
        QVERIFY(help({QStringLiteral("--lang"), QStringLiteral("de")}, {}).contains(german));
        QVERIFY(help({QStringLiteral("--lang=de")}, {}).contains(german));
        QVERIFY(
            help({}, {{QStringLiteral("SANDBENCH_LANG"), QStringLiteral("de")}}).contains(german));
        QVERIFY(help({}, {{QStringLiteral("LANGUAGE"), QStringLiteral("de_DE:de")},
                          {QStringLiteral("LANG"), QStringLiteral("de_DE.UTF-8")}})
                    .contains(german));
        QVERIFY(help({QStringLiteral("--lang"), QStringLiteral("en")},
                     {{QStringLiteral("LANG"), QStringLiteral("de_DE.UTF-8")}})
                    .contains(english));

        // The setting, in the file the program reads: $XDG_CONFIG_HOME/sandbench/sandbench.conf.
        const QString conf =
            m_world.root() + QStringLiteral("/xdg/config/sandbench/sandbench.conf");
        {
            QSettings stored(conf, QSettings::IniFormat);
            stored.setValue(QStringLiteral("ui/language"), QStringLiteral("de"));
        }
        QVERIFY(help({}, {}).contains(german));
        QVERIFY(
            help({}, {{QStringLiteral("SANDBENCH_LANG"), QStringLiteral("en")}}).contains(english));
        QFile::remove(conf);

        GuiRun unknown =
            runGui({QStringLiteral("--help"), QStringLiteral("--lang"), QStringLiteral("xx")});
        QVERIFY(unknown.out.contains(english));
        QVERIFY2(unknown.err.contains(QLatin1String("no translation")), qPrintable(unknown.err));
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(SettingsTest)
#include "SettingsTest.moc"
