// The first-run view: the doctor's checks shown as rows (problems with their fix, the summary
// telling whether sandboxes can run), "Check again", and the two buttons' signals. Also once
// over this machine's real doctor.
#include "main/WelcomeView.h"

#include <QFrame>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using sbui::WelcomeView;

namespace {

std::vector<sb::DoctorCheck> healthyMachine()
{
    return {{"namespaces", true, true, "user, mount, pid, net, ipc, uts and cgroup namespaces", ""},
            {"overlayfs", true, true, "overlay mounts inside a user namespace", ""},
            {"landlock", true, false, "ABI 3: writes confined to the workspace", ""}};
}

std::vector<sb::DoctorCheck> brokenMachine()
{
    return {{"namespaces", false, true, "cannot create namespaces: Operation not permitted",
             "enable them: 'sudo sysctl -w kernel.unprivileged_userns_clone=1'"},
            {"seccomp", true, true, "deny list of 60 system calls", ""},
            {"cgroups", false, false, "no delegated cgroup v2 subtree",
             "run from a systemd user service"}};
}

// With SANDBENCH_WELCOME_SCREENSHOT=PREFIX, the view is also saved as PREFIX-NAME.png to look at.
void screenshot(WelcomeView& view, const char* name)
{
    const QByteArray prefix = qgetenv("SANDBENCH_WELCOME_SCREENSHOT");
    if (prefix.isEmpty()) return;
    view.resize(900, 760);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.grab().save(QString::fromLocal8Bit(prefix + "-" + name + ".png")));
}

QString labelText(QWidget* row, const char* name)
{
    auto* label = row->findChild<QLabel*>(QString::fromLatin1(name));
    return label ? label->text() : QString();
}

} // namespace

class WelcomeViewTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void showsEveryCheckWithItsFix()
    {
        WelcomeView view([] { return brokenMachine(); });
        QCOMPARE(view.checks().size(), std::size_t{3});
        QVERIFY(!view.sandboxUsable());

        auto* namespaces = view.findChild<QFrame*>(QStringLiteral("doctor-namespaces"));
        QVERIFY(namespaces);
        QCOMPARE(labelText(namespaces, "detail"),
                 QStringLiteral("cannot create namespaces: Operation not permitted"));
        QVERIFY(labelText(namespaces, "fix")
                    .contains(QStringLiteral("sudo sysctl -w kernel.unprivileged_userns_clone=1")));

        auto* cgroups = view.findChild<QFrame*>(QStringLiteral("doctor-cgroups"));
        QVERIFY(cgroups);
        QVERIFY(labelText(cgroups, "fix").contains(QStringLiteral("systemd user service")));

        // A passing check has no fix line.
        auto* seccomp = view.findChild<QFrame*>(QStringLiteral("doctor-seccomp"));
        QVERIFY(seccomp);
        QVERIFY(!seccomp->findChild<QLabel*>(QStringLiteral("fix")));
        QVERIFY(labelText(seccomp, "title").contains(QStringLiteral("seccomp")));

        auto* summary = view.findChild<QLabel*>(QStringLiteral("summary"));
        QVERIFY(summary->text().contains(QStringLiteral("cannot run")));
        screenshot(view, "problems");
    }

    void healthyMachineSaysSo()
    {
        WelcomeView view([] { return healthyMachine(); });
        QVERIFY(view.sandboxUsable());
        QCOMPARE(view.findChildren<QLabel*>(QStringLiteral("fix")).size(), 0);
        auto* summary = view.findChild<QLabel*>(QStringLiteral("summary"));
        QVERIFY(summary->text().contains(QStringLiteral("can run")));
        QVERIFY(summary->text().contains(QStringLiteral("every protection")));
    }

    void checkAgainRunsTheDoctorAgain()
    {
        int runs = 0;
        WelcomeView view([&runs] { return ++runs == 1 ? brokenMachine() : healthyMachine(); });
        QVERIFY(!view.sandboxUsable());
        QVERIFY(view.findChild<QFrame*>(QStringLiteral("doctor-cgroups")));

        QPushButton* again = nullptr;
        for (auto* b : view.findChildren<QPushButton*>())
            if (b->text().contains(QStringLiteral("again"))) again = b;
        QVERIFY(again);
        QTest::mouseClick(again, Qt::LeftButton);
        QCOMPARE(runs, 2);
        QVERIFY(view.sandboxUsable());
        // The old rows are gone, the new ones shown.
        QVERIFY(!view.findChild<QFrame*>(QStringLiteral("doctor-cgroups")));
        QVERIFY(view.findChild<QFrame*>(QStringLiteral("doctor-landlock")));
    }

    void buttonsEmit()
    {
        WelcomeView view([] { return healthyMachine(); });
        view.show();
        view.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&view));
        QSignalSpy demo(&view, &WelcomeView::demoRequested);
        QSignalSpy newSession(&view, &WelcomeView::newSessionRequested);

        QTest::mouseClick(view.demoButton(), Qt::LeftButton);
        QCOMPARE(demo.size(), 1);
        QCOMPARE(newSession.size(), 0);
        QTest::mouseClick(view.newSessionButton(), Qt::LeftButton);
        QCOMPARE(newSession.size(), 1);
        QCOMPARE(demo.size(), 1);

        // The mnemonics work from the keyboard too (a button clicks once its press is shown).
        QTest::keyClick(&view, Qt::Key_D, Qt::AltModifier);
        QTRY_COMPARE(demo.size(), 2);
        QTest::keyClick(&view, Qt::Key_N, Qt::AltModifier);
        QTRY_COMPARE(newSession.size(), 2);
        QCOMPARE(demo.size(), 2);
    }

    // This machine's own doctor, through the default constructor: one row per check it reports.
    void realDoctorRows()
    {
        WelcomeView view;
        const auto& checks = view.checks();
        QVERIFY(!checks.empty());
        for (const auto& check : checks) {
            auto* row = view.findChild<QFrame*>(QStringLiteral("doctor-") +
                                                QString::fromStdString(check.name));
            QVERIFY2(row, check.name.c_str());
            QCOMPARE(labelText(row, "detail"), QString::fromStdString(check.detail));
            QCOMPARE(row->findChild<QLabel*>(QStringLiteral("fix")) != nullptr,
                     !check.ok && !check.fix.empty());
        }
        screenshot(view, "this-machine");
    }
};

QTEST_MAIN(WelcomeViewTest)
#include "WelcomeViewTest.moc"
