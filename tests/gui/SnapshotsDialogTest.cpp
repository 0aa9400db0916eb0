// Session → Snapshots… over real sessions: a stopped session's changes kept, restored after
// they changed and forked into a new session; a running session's snapshot asked of its
// supervisor (its sandbox frozen meanwhile, or refused where nothing can freeze it), with
// restore and fork held until it stops.
#include "sessions/SnapshotsDialog.h"

#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "main/Prompt.h"
#include "sessions/SessionConnection.h"
#include "workspace/SessionSnapshots.h"

#include <QCoreApplication>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

using namespace sbgt;
using sbui::SessionConnection;
using sbui::SnapshotsDialog;

namespace {

QPushButton* button(const SnapshotsDialog& d, const char* name)
{
    return d.findChild<QPushButton*>(QString::fromLatin1(name));
}

QLineEdit* field(const SnapshotsDialog& d, const char* name)
{
    return d.findChild<QLineEdit*>(QString::fromLatin1(name));
}

bool changed(const QString& session, const QString& file)
{
    auto info = sb::loadSession(session.toStdString());
    return info &&
           QFile::exists(QString::fromStdString((info->upperDir() / file.toStdString()).string()));
}

int cli(const QStringList& args)
{
    QProcess p;
    p.start(cliPath(), args);
    p.waitForFinished(30000);
    return p.exitCode();
}

QString messages(const SnapshotsDialog& d)
{
    QStringList all;
    for (const QLabel* l : d.findChildren<QLabel*>())
        all << l->text();
    return all.join(u'\n');
}

} // namespace

class SnapshotsDialogTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        sbui::prompt::setTesting(true);
        installShotLanguage();
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
    }

    void aStoppedSessionIsKeptRestoredAndForked()
    {
        const QString id = QStringLiteral("snap-%1").arg(QCoreApplication::applicationPid());
        QString error;
        auto session = HeadlessSession::start(m_world, id,
                                              {QStringLiteral("--network"), QStringLiteral("none")},
                                              {QStringLiteral("bash"), QStringLiteral("-c"),
                                               QStringLiteral("echo one > a.txt; sleep 1")},
                                              &error);
        QVERIFY2(session, qPrintable(error));
        QCOMPARE(session->waitForExit(), 0);

        SnapshotsDialog dialog(id, nullptr);
        QCOMPARE(dialog.table()->topLevelItemCount(), 0);
        QVERIFY(!button(dialog, "RestoreButton")->isEnabled());
        field(dialog, "SnapshotName")->setText(QStringLiteral("first"));
        QTest::mouseClick(button(dialog, "TakeButton"), Qt::LeftButton);
        QCOMPARE(dialog.table()->topLevelItemCount(), 1);
        QCOMPARE(dialog.table()->topLevelItem(0)->text(0), QStringLiteral("first"));
        QVERIFY(messages(dialog).contains(
            SnapshotsDialog::tr("Took %1.").arg(QStringLiteral("first"))));
        // Counted as the Changes tab counts them (issue 37, item 13: it said "3 entries").
        QVERIFY2(dialog.table()->topLevelItem(0)->text(2).startsWith(
                     SnapshotsDialog::tr("%n change(s)", nullptr, 1) + QStringLiteral(" · ")),
                 qPrintable(dialog.table()->topLevelItem(0)->text(2)));
        // A name taken already is refused, saying so.
        field(dialog, "SnapshotName")->setText(QStringLiteral("first"));
        QTest::mouseClick(button(dialog, "TakeButton"), Qt::LeftButton);
        QVERIFY2(messages(dialog).contains(
                     SnapshotsDialog::tr("There is a snapshot %1 already: choose another name.")
                         .arg(QStringLiteral("first"))),
                 qPrintable(messages(dialog)));

        QCOMPARE(cli({QStringLiteral("discard"), id, QStringLiteral("a.txt")}), 0);
        QVERIFY(!changed(id, QStringLiteral("a.txt")));
        // Of no changes, it says so (it said "1 entry · 0 bytes").
        field(dialog, "SnapshotName")->setText(QStringLiteral("nothing"));
        QTest::mouseClick(button(dialog, "TakeButton"), Qt::LeftButton);
        QCOMPARE(dialog.table()->topLevelItemCount(), 2);
        QCOMPARE(dialog.table()->topLevelItem(1)->text(2), SnapshotsDialog::tr("no changes"));
        dialog.show();
        screenshotAsIs(dialog, QStringLiteral("snapshot-counts"));
        dialog.table()->topLevelItem(0)->setSelected(true);
        QSignalSpy restored(&dialog, &SnapshotsDialog::restored);
        sbui::prompt::setNextAnswer(true);
        QTest::mouseClick(button(dialog, "RestoreButton"), Qt::LeftButton);
        QCOMPARE(restored.size(), 1);
        QVERIFY(changed(id, QStringLiteral("a.txt")));

        QSignalSpy forked(&dialog, &SnapshotsDialog::forked);
        QVERIFY(!button(dialog, "ForkButton")->isEnabled()); // no name for it yet
        field(dialog, "ForkAs")->setText(id + QStringLiteral("-fork"));
        QTest::mouseClick(button(dialog, "ForkButton"), Qt::LeftButton);
        QCOMPARE(forked.size(), 1);
        QCOMPARE(forked.first().first().toString(), id + QStringLiteral("-fork"));
        QVERIFY(changed(id + QStringLiteral("-fork"), QStringLiteral("a.txt")));
    }

    // Issue 37, item 13: a snapshot's or a fork's name is checked as it is typed, not only once
    // Take or Fork refused it.
    void namesAreCheckedAsTheyAreTyped()
    {
        const QString id = QStringLiteral("snap-names-%1").arg(QCoreApplication::applicationPid());
        QString error;
        auto session = HeadlessSession::start(m_world, id,
                                              {QStringLiteral("--network"), QStringLiteral("none")},
                                              {QStringLiteral("bash"), QStringLiteral("-c"),
                                               QStringLiteral("echo one > a.txt; sleep 1")},
                                              &error);
        QVERIFY2(session, qPrintable(error));
        QCOMPARE(session->waitForExit(), 0);
        SnapshotsDialog dialog(id, nullptr);
        QLineEdit* name = field(dialog, "SnapshotName");
        QPushButton* take = button(dialog, "TakeButton");
        const QString quiet = messages(dialog);
        name->setText(QStringLiteral("not a name!"));
        QVERIFY(!take->isEnabled());
        QVERIFY2(messages(dialog) != quiet, "nothing says what is wrong");
        dialog.show();
        screenshotAsIs(dialog, QStringLiteral("snapshot-name"));
        name->setText(QStringLiteral("good-name"));
        QVERIFY(take->isEnabled());
        QCOMPARE(messages(dialog), quiet);

        QLineEdit* as = field(dialog, "ForkAs");
        QPushButton* fork = button(dialog, "ForkButton");
        as->setText(QStringLiteral("-starts-with-a-dash"));
        QVERIFY(!fork->isEnabled());
        QVERIFY2(messages(dialog) != quiet, "nothing says what is wrong");
        as->setText(id); // a session of that name exists
        QVERIFY(!fork->isEnabled());
        as->setText(id + QStringLiteral("-copy"));
        QVERIFY(fork->isEnabled());
        QCOMPARE(messages(dialog), quiet);
    }

    void aRunningSessionsSnapshotIsItsSupervisors()
    {
        const QString id = QStringLiteral("snap-live-%1").arg(QCoreApplication::applicationPid());
        QString error;
        auto session = HeadlessSession::start(m_world, id,
                                              {QStringLiteral("--network"), QStringLiteral("none")},
                                              {QStringLiteral("bash"), QStringLiteral("-c"),
                                               QStringLiteral("echo live > b.txt; sleep 60")},
                                              &error);
        QVERIFY2(session, qPrintable(error));
        auto connection = SessionConnection::open(id, &error);
        QVERIFY2(connection, qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(changed(id, QStringLiteral("b.txt")), 20000);

        SnapshotsDialog dialog(id, connection.get());
        field(dialog, "ForkAs")->setText(QStringLiteral("never"));
        QVERIFY(!button(dialog, "ForkButton")->isEnabled());
        QTest::mouseClick(button(dialog, "TakeButton"), Qt::LeftButton);
        const QString said = messages(dialog);
        if (dialog.table()->topLevelItemCount() == 1) {
            QVERIFY2(said.contains(QStringLiteral("frozen")), qPrintable(said));
            dialog.table()->topLevelItem(0)->setSelected(true);
            QVERIFY(!button(dialog, "RestoreButton")->isEnabled()); // not under a mounted layer
        } else {
            // Nothing to freeze it with (no cgroups for this user): refused, by name.
            QVERIFY2(said.contains(QStringLiteral("no cgroup of its own")), qPrintable(said));
        }
        connection->stop();
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(SnapshotsDialogTest)
#include "SnapshotsDialogTest.moc"
