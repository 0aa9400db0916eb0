// The window by keyboard (issue 37, item 12): Ctrl+PgDn / Ctrl+PgUp and Alt+1…5 move between
// the centre tabs that apply, also while a running session's terminal has the focus;
// Ctrl+Shift+L goes to the Sessions list; in New session, Tab from the folder field goes to the
// next field, not to Browse… (where a space would open a file dialog).
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "files/FileReviewPanel.h"
#include "main/MainWindow.h"
#include "main/Prompt.h"
#include "policy/PolicyEditor.h"
#include "ports/PortsView.h"
#include "sessions/NewSessionDialog.h"
#include "sessions/SessionHub.h"
#include "terminal/TerminalWidget.h"

#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

using namespace sbgt;
using sbui::MainWindow;

class KeyboardTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        installShotLanguage();
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
    }

    void init() { QSettings().clear(); }

    void tabsAndSessionsByKeyboard()
    {
        QString error;
        auto live = HeadlessSession::start(
            m_world, QStringLiteral("keys-live"),
            {QStringLiteral("--network"), QStringLiteral("none")},
            {QStringLiteral("bash"), QStringLiteral("-c"), QStringLiteral("echo ready; cat")},
            &error);
        QVERIFY2(live, qPrintable(error));
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.selectSession(live->id()));
        QTRY_VERIFY_WITH_TIMEOUT(window.terminal()->screenText().contains(QLatin1String("ready")),
                                 20000);
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window)); // window shortcuts need it
        window.terminal()->setFocus();
        QVERIFY(!window.terminal()->isReadOnly()); // a program reads these keys otherwise
        QCOMPARE(window.tabs()->currentWidget(), window.terminal());

        QTest::keyClick(window.terminal(), Qt::Key_PageDown, Qt::ControlModifier);
        QCOMPARE(window.tabs()->currentWidget(), window.files());
        QTest::keyClick(window.tabs()->currentWidget(), Qt::Key_PageUp, Qt::ControlModifier);
        QCOMPARE(window.tabs()->currentWidget(), window.terminal());
        // Round the start: the last tab that applies (Ports; Replay is not there while it runs).
        QTest::keyClick(window.terminal(), Qt::Key_PageUp, Qt::ControlModifier);
        QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(window.ports()));
        QTest::keyClick(window.tabs()->currentWidget(), Qt::Key_3, Qt::AltModifier);
        QCOMPARE(window.tabs()->currentWidget(), window.policy());
        QTest::keyClick(window.tabs()->currentWidget(), Qt::Key_1, Qt::AltModifier);
        QCOMPARE(window.tabs()->currentWidget(), window.terminal());
        // The terminal did not get them: nothing was typed into the program.
        QVERIFY2(!window.terminal()->screenText().contains(QLatin1String("~")),
                 qPrintable(window.terminal()->screenText()));

        QTest::keyClick(window.terminal(), Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(window.sessionsView()));
        // The Session menu names it, with its keys.
        QMenu* sessionMenu = window.menuBar()->actions().at(2)->menu();
        QVERIFY(sessionMenu);
        sessionMenu->popup(window.mapToGlobal(QPoint(80, 20)));
        QVERIFY(QTest::qWaitForWindowExposed(sessionMenu));
        screenshotAsIs(*sessionMenu, QStringLiteral("session-menu"));
        sessionMenu->close();
        window.hub()->kill(live->id());
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(live->id()), 20000);
    }

    void tabFromTheFolderSkipsBrowse()
    {
        sbui::NewSessionDialog dialog;
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.activateWindow();
        dialog.workspaceEdit()->setFocus();
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(dialog.workspaceEdit()));
        QTest::keyClick(dialog.workspaceEdit(), Qt::Key_Tab);
        QWidget* next = QApplication::focusWidget();
        QVERIFY(next);
        QVERIFY2(next == dialog.commandBox() || dialog.commandBox()->isAncestorOf(next),
                 next->metaObject()->className());
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(KeyboardTest)
#include "KeyboardTest.moc"
