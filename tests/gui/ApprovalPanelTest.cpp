// The approval panel and its cards, without a session: what a card shows, its countdown on a mock
// clock, what Allow, Deny and the shortcuts send, and how outcomes take cards away.
#include "approvals/ApprovalPanel.h"

#include "approvals/ApprovalCard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QVBoxLayout>

using sbui::ApprovalCard;
using sbui::ApprovalPanel;

namespace {

sb::ApprovalRequest commandRequest(std::uint64_t id, std::vector<std::string> argv,
                                   std::int64_t deadlineUnixMs)
{
    sb::ApprovalRequest r;
    r.id = id;
    r.kind = sb::ApprovalKind::Command;
    r.program = "/usr/bin/" + argv.front();
    r.argv = std::move(argv);
    r.cwd = "/home/u/project";
    r.rule = "commands.rules[0] (ask \"git *\")";
    r.deadlineUnixMs = deadlineUnixMs;
    return r;
}

sb::ApprovalRequest networkRequest(std::uint64_t id, const std::string& host,
                                   std::int64_t deadlineUnixMs)
{
    sb::ApprovalRequest r;
    r.id = id;
    r.kind = sb::ApprovalKind::Network;
    r.host = host;
    r.port = 443;
    r.protocol = "connect";
    r.rule = "default";
    r.deadlineUnixMs = deadlineUnixMs;
    return r;
}

sb::ApprovalOutcome outcomeOf(std::uint64_t id, bool allow, const std::string& by,
                              sb::ApprovalDuration duration = sb::ApprovalDuration::Once)
{
    sb::ApprovalOutcome o;
    o.id = id;
    o.allow = allow;
    o.answer.allow = allow;
    o.answer.duration = duration;
    o.answer.answeredBy = by;
    return o;
}

// Every label's text on the card (or panel), as one string to search.
QString visibleText(const QWidget* widget)
{
    QStringList texts;
    for (const QLabel* label : widget->findChildren<QLabel*>())
        if (label->isVisibleTo(widget)) texts << label->text().remove(QChar(0x200B));
    return texts.join(u'\n');
}

QStringList scopeLabels(const ApprovalCard* card)
{
    QStringList out;
    for (int i = 0; i < card->scopeBox()->count(); ++i)
        out << card->scopeBox()->itemText(i);
    return out;
}

// Clicks reach only a widget on screen.
void showPanel(ApprovalPanel& panel)
{
    panel.resize(420, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
}

sb::ApprovalAnswer answerAt(const QSignalSpy& spy, int i)
{
    return spy.at(i).at(1).value<sb::ApprovalAnswer>();
}

std::uint64_t idAt(const QSignalSpy& spy, int i)
{
    return spy.at(i).at(0).value<std::uint64_t>();
}

} // namespace

class ApprovalPanelTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void commandCardShowsTheCommandLineFolderProgramAndRule()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        panel.addRequest(commandRequest(
            3, {"git", "commit", "-m", "fix the bug", "--author=it's me"}, clock.unixMs() + 60000));
        ApprovalCard* card = panel.card(3);
        QVERIFY(card);
        QCOMPARE(card->subjectText(),
                 QStringLiteral("git commit -m 'fix the bug' '--author=it'\\''s me'"));
        const QString text = visibleText(card);
        QVERIFY2(text.contains(card->subjectText()), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("/home/u/project")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("/usr/bin/git")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("asked by command rule 1 (ask \"git *\")")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("#3")), qPrintable(text));
        // Command scopes only, labelled with the rule each one would make.
        const QStringList scopes = scopeLabels(card);
        QCOMPARE(scopes.size(), 3);
        QVERIFY2(scopes.join(u'|').contains(QStringLiteral("git commit *")),
                 qPrintable(scopes.join(u'|')));
        QVERIFY2(scopes.join(u'|').contains(QStringLiteral("git *")),
                 qPrintable(scopes.join(u'|')));
        QVERIFY(!card->setScope(sb::ApprovalScope::Host));
        QCOMPARE(card->scope(), sb::ApprovalScope::ExactCommand);
        QCOMPARE(card->duration(), sb::ApprovalDuration::Once);
    }

    void programWithoutArgumentsHasNoSubcommandScope()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        panel.addRequest(commandRequest(1, {"make"}, clock.unixMs() + 60000));
        QVERIFY(!panel.card(1)->setScope(sb::ApprovalScope::Subcommand));
        QVERIFY(panel.card(1)->setScope(sb::ApprovalScope::AnyArguments));
    }

    void longCommandWrapsInsteadOfWideningThePanel()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        const std::string path = "/home/u/" + std::string(120, 'p') + "/build/output.tar.gz";
        auto request =
            commandRequest(1, {"tar", "czf", path, std::string(1500, 'x')}, clock.unixMs() + 60000);
        request.cwd = "/srv/" + std::string(150, 'c');
        panel.addRequest(request);
        ApprovalCard* card = panel.card(1);
        QVERIFY2(card->minimumSizeHint().width() < 320,
                 qPrintable(QString::number(card->minimumSizeHint().width())));
        // The card shows the start; the full line stays available (tooltip, copy, subjectText).
        QVERIFY(card->subjectText().endsWith(QString(1500, u'x')));
        QVERIFY2(visibleText(card).contains(QStringLiteral("more characters")),
                 qPrintable(visibleText(card)));
    }

    void longCountdownWrapsInsteadOfWideningThePanel()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        showPanel(panel);
        panel.resize(300, 600); // the dock's narrowest
        panel.addRequest(networkRequest(1, "api.example.com", clock.unixMs() + 109000));
        ApprovalCard* card = panel.card(1);
        // As long as German's "1 min 49 s, dann verweigert" beside "Verbindung #1".
        card->setOnTimeout(false);
        auto* countdown = card->findChild<QLabel*>(QStringLiteral("countdown"));
        QVERIFY(countdown);
        countdown->setText(countdown->text() + QStringLiteral(", or a little later, denied"));
        auto* scroll = panel.findChild<QScrollArea*>();
        QVERIFY(scroll);
        QTest::qWait(50); // the layouts settle
        QVERIFY2(panel.width() == 300 && card->isVisible() &&
                     card->width() <= scroll->viewport()->width() &&
                     !scroll->horizontalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("card %1 px, viewport %2, panel %3")
                                .arg(card->width())
                                .arg(scroll->viewport()->width())
                                .arg(panel.width())));
    }

    void networkCardShowsHostPortProtocolAndRule()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        panel.addRequest(networkRequest(4, "api.example.com", clock.unixMs() + 60000));
        ApprovalCard* card = panel.card(4);
        QVERIFY(card);
        QCOMPARE(card->subjectText(), QStringLiteral("api.example.com:443"));
        const QString text = visibleText(card);
        QVERIFY2(text.contains(QStringLiteral("api.example.com:443")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("connect")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("default")), qPrintable(text));
        // Host scopes, and the suggested rule for an "always" answer (the domain, this port).
        const QStringList scopes = scopeLabels(card);
        QCOMPARE(scopes.size(), 4);
        QVERIFY2(scopes.join(u'|').contains(QStringLiteral("*.example.com")),
                 qPrintable(scopes.join(u'|')));
        QVERIFY2(scopes.last().contains(QStringLiteral("*.example.com, port 443")),
                 qPrintable(scopes.last()));
        QVERIFY(!card->setScope(sb::ApprovalScope::ExactCommand));
        QCOMPARE(card->scope(), sb::ApprovalScope::HostPort);

        // An address has no domain: that scope cannot be chosen.
        panel.addRequest(networkRequest(5, "10.1.2.3", clock.unixMs() + 60000));
        QVERIFY(!panel.card(5)->setScope(sb::ApprovalScope::Domain));
        QVERIFY(panel.card(5)->setScope(sb::ApprovalScope::Host));
    }

    // Which program wants the connection, and what started it.
    void networkCardNamesTheProgramAndItsParents()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        sb::ApprovalRequest request = networkRequest(6, "api.example.com", clock.unixMs() + 60000);
        request.process = {{12, "/usr/bin/node", {"node", "build.js"}},
                           {9, "/usr/bin/node", {"npm", "run", "build"}},
                           {2, "/usr/bin/bash", {"bash"}}};
        request.rule = "default (ask)"; // as the network rules name it
        panel.addRequest(request);
        const QString text = visibleText(panel.card(6));
        QVERIFY2(text.contains(QStringLiteral("asked by the policy's default")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("wanted by node build.js (pid 12)")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("started by npm run build (pid 9) < bash (pid 2)")),
                 qPrintable(text));
    }

    void countdownFollowsTheClock()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        panel.addRequest(commandRequest(1, {"git", "push"}, clock.unixMs() + 125000));
        ApprovalCard* card = panel.card(1);
        QCOMPARE(card->countdownText(), QStringLiteral("2 min 5 s"));
        clock.advance(78000);
        panel.tick();
        QCOMPARE(card->countdownText(), QStringLiteral("47 s"));
        clock.advance(500);
        panel.tick();
        QCOMPARE(card->countdownText(), QStringLiteral("47 s")); // 46.5 s rounds up
        clock.advance(500);
        panel.tick();
        QCOMPARE(card->countdownText(), QStringLiteral("46 s"));
        QVERIFY(visibleText(card).contains(QStringLiteral("46 s")));

        panel.setOnTimeout(false);
        QCOMPARE(card->countdownText(), QStringLiteral("46 s, then denied"));

        clock.advance(46000);
        panel.tick();
        QCOMPARE(card->countdownText(), QStringLiteral("expired, waiting for the supervisor"));
        QVERIFY(!card->allowButton()->isEnabled());
        QVERIFY(!card->denyButton()->isEnabled());
        QCOMPARE(panel.pendingCount(), 1); // the supervisor has not said yet
    }

    void panelTimerUpdatesTheCountdown()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        panel.addRequest(commandRequest(1, {"git", "push"}, clock.unixMs() + 30000));
        ApprovalCard* card = panel.card(1);
        QCOMPARE(card->countdownText(), QStringLiteral("30 s"));
        clock.advance(10000);
        QTRY_COMPARE(card->countdownText(), QStringLiteral("20 s"));
        QTRY_VERIFY(visibleText(card).contains(QStringLiteral("20 s")));
    }

    void requestAlreadyPastItsDeadlineShowsExpired()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        QSignalSpy answered(&panel, &ApprovalPanel::answered);
        panel.addRequest(commandRequest(1, {"git", "push"}, clock.unixMs() - 1));
        ApprovalCard* card = panel.card(1);
        QCOMPARE(card->countdownText(), QStringLiteral("expired, waiting for the supervisor"));
        QVERIFY(!card->allowButton()->isEnabled());
        QVERIFY(!panel.answerCurrent(true));
        card->answer(true);
        QCOMPARE(answered.count(), 0);
    }

    void allowClickSendsTheChosenScopeAndDuration()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        showPanel(panel);
        QSignalSpy answered(&panel, &ApprovalPanel::answered);
        panel.addRequest(commandRequest(7, {"git", "push", "origin"}, clock.unixMs() + 60000));
        ApprovalCard* card = panel.card(7);
        QVERIFY(!card->scopeBox()->isEnabled()); // "once" covers this request only
        card->setDuration(sb::ApprovalDuration::Session);
        QVERIFY(card->scopeBox()->isEnabled());
        QVERIFY(card->setScope(sb::ApprovalScope::Subcommand));
        QTest::mouseClick(card->allowButton(), Qt::LeftButton);
        QCOMPARE(answered.count(), 1);
        QCOMPARE(idAt(answered, 0), std::uint64_t{7});
        const sb::ApprovalAnswer a = answerAt(answered, 0);
        QVERIFY(a.allow);
        QCOMPARE(a.scope, sb::ApprovalScope::Subcommand);
        QCOMPARE(a.duration, sb::ApprovalDuration::Session);
        QCOMPARE(QString::fromStdString(a.answeredBy), QStringLiteral("gui"));
        QVERIFY2(card->statusText().contains(QStringLiteral("waiting")),
                 qPrintable(card->statusText()));
        QVERIFY(visibleText(card).contains(QStringLiteral("waiting")));
        // Answered once: the buttons are done until the outcome arrives.
        QVERIFY(!card->allowButton()->isEnabled());
        QTest::mouseClick(card->denyButton(), Qt::LeftButton);
        QCOMPARE(answered.count(), 1);
        QCOMPARE(panel.pendingCount(), 1);
    }

    // A session whose policy is in no file cannot save a rule: "Always" is not offered there,
    // and says why; cards shown before and after both follow.
    void alwaysIsNotOfferedWhereNoRuleCanBeSaved()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        showPanel(panel);
        panel.addRequest(commandRequest(1, {"git", "push"}, clock.unixMs() + 60000));
        ApprovalCard* before = panel.card(1);
        QVERIFY(before->canSaveRules());
        before->setDuration(sb::ApprovalDuration::Always);
        panel.setCanSaveRules(false);
        QVERIFY(!before->canSaveRules());
        QCOMPARE(before->duration(), sb::ApprovalDuration::Session);
        panel.addRequest(commandRequest(2, {"make"}, clock.unixMs() + 60000));
        QVERIFY(!panel.card(2)->canSaveRules());
        QSignalSpy answered(&panel, &ApprovalPanel::answered);
        panel.card(2)->setDuration(sb::ApprovalDuration::Always); // not offered: no effect
        QTest::mouseClick(panel.card(2)->allowButton(), Qt::LeftButton);
        QCOMPARE(answered.count(), 1);
        QVERIFY(answerAt(answered, 0).duration != sb::ApprovalDuration::Always);
        panel.setCanSaveRules(true);
        QVERIFY(before->canSaveRules());
    }

    void denyClickSendsTheChosenScopeAndDuration()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        showPanel(panel);
        QSignalSpy answered(&panel, &ApprovalPanel::answered);
        panel.addRequest(networkRequest(2, "cdn.example.com", clock.unixMs() + 60000));
        ApprovalCard* card = panel.card(2);
        card->setDuration(sb::ApprovalDuration::Always);
        QVERIFY(card->setScope(sb::ApprovalScope::Domain));
        QTest::mouseClick(card->denyButton(), Qt::LeftButton);
        QCOMPARE(answered.count(), 1);
        const sb::ApprovalAnswer a = answerAt(answered, 0);
        QVERIFY(!a.allow);
        QCOMPARE(a.scope, sb::ApprovalScope::Domain);
        QCOMPARE(a.duration, sb::ApprovalDuration::Always);
    }

    void thisProgramOnlyTravelsWithTheAnswer()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        showPanel(panel);
        QSignalSpy answered(&panel, &ApprovalPanel::answered);
        sb::ApprovalRequest request = networkRequest(3, "github.com", clock.unixMs() + 60000);
        request.process = {{12, "/usr/bin/ssh", {"ssh", "git@github.com"}},
                           {2, "/usr/bin/git", {"git", "push"}}};
        panel.addRequest(request);
        ApprovalCard* card = panel.card(3);
        QCheckBox* only = card->programOnlyBox();
        QVERIFY(only);
        QVERIFY(only->isVisibleTo(card));
        QVERIFY2(only->toolTip().contains(QStringLiteral("/usr/bin/ssh")),
                 qPrintable(only->toolTip()));
        QVERIFY(!only->isChecked());
        // A once answer covers this request only: nothing to limit.
        card->setDuration(sb::ApprovalDuration::Once);
        QVERIFY(!only->isEnabled());
        card->setDuration(sb::ApprovalDuration::Session);
        QVERIFY(only->isEnabled());
        // On its box: a click right of the text would miss it.
        QTest::mouseClick(only, Qt::LeftButton, {}, QPoint(8, only->height() / 2));
        QVERIFY(only->isChecked());
        QTest::mouseClick(card->allowButton(), Qt::LeftButton);
        QCOMPARE(answered.count(), 1);
        const sb::ApprovalAnswer a = answerAt(answered, 0);
        QVERIFY(a.allow);
        QVERIFY(a.programOnly);
        QCOMPARE(a.duration, sb::ApprovalDuration::Session);

        // Unticked (the default), the answer covers every program.
        sb::ApprovalRequest other = request;
        other.id = 4;
        panel.addRequest(other);
        card = panel.card(4);
        card->setDuration(sb::ApprovalDuration::Session);
        QTest::mouseClick(card->allowButton(), Qt::LeftButton);
        QCOMPARE(answered.count(), 2);
        QVERIFY(!answerAt(answered, 1).programOnly);
    }

    void noProgramOnlyChoiceWithoutAKnownProcess()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        QSignalSpy answered(&panel, &ApprovalPanel::answered);
        panel.addRequest(networkRequest(5, "example.com", clock.unixMs() + 60000));
        ApprovalCard* card = panel.card(5);
        QVERIFY(!card->programOnlyBox());
        QVERIFY(card->findChildren<QCheckBox*>().isEmpty());
        // Nor on a command's card, whose scope names its program already.
        panel.addRequest(commandRequest(6, {"git", "push"}, clock.unixMs() + 60000));
        QVERIFY(!panel.card(6)->programOnlyBox());
        card->setDuration(sb::ApprovalDuration::Session);
        card->answer(true);
        QCOMPARE(answered.count(), 1);
        QVERIFY(!answerAt(answered, 0).programOnly);
    }

    void shortcutsAnswerTheOldestThenTheFocusedCard()
    {
        sb::MockClock clock;
        QWidget window;
        auto* terminal = new QLineEdit(&window); // stands in for the terminal, which has the focus
        auto* panel = new ApprovalPanel(clock, &window);
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(terminal);
        layout->addWidget(panel);
        window.resize(420, 700);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        terminal->setFocus();
        QSignalSpy answered(panel, &ApprovalPanel::answered);
        for (std::uint64_t id : {1, 2, 3})
            panel->addRequest(
                commandRequest(id, {"touch", "f" + std::to_string(id)}, clock.unixMs() + 60000));
        panel->card(1)->setDuration(sb::ApprovalDuration::Session);
        panel->card(1)->setScope(sb::ApprovalScope::AnyArguments);

        QTest::keyClick(terminal, Qt::Key_Y, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(answered.count(), 1);
        QCOMPARE(idAt(answered, 0), std::uint64_t{1});
        QVERIFY(answerAt(answered, 0).allow);
        QCOMPARE(answerAt(answered, 0).scope, sb::ApprovalScope::AnyArguments);
        QCOMPARE(answerAt(answered, 0).duration, sb::ApprovalDuration::Session);

        // #1 waits for its outcome, so the oldest open one is #2.
        QTest::keyClick(terminal, Qt::Key_N, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(answered.count(), 2);
        QCOMPARE(idAt(answered, 1), std::uint64_t{2});
        QVERIFY(!answerAt(answered, 1).allow);

        panel->addRequest(commandRequest(4, {"touch", "f4"}, clock.unixMs() + 60000));
        // A card with the focus (here its duration box) goes before older ones.
        panel->card(4)->durationBox()->setFocus();
        QTRY_VERIFY(panel->card(4)->durationBox()->hasFocus());
        QCOMPARE(panel->currentCard(), panel->card(4));
        QTest::keyClick(panel->card(4)->durationBox(), Qt::Key_Y,
                        Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(answered.count(), 3);
        QCOMPARE(idAt(answered, 2), std::uint64_t{4});

        QTest::keyClick(terminal, Qt::Key_Y, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(answered.count(), 4);
        QCOMPARE(idAt(answered, 3), std::uint64_t{3});
        // Nothing open any more: the shortcut does nothing.
        QTest::keyClick(terminal, Qt::Key_Y, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(answered.count(), 4);
    }

    void resolveRemovesTheCardAndUpdatesTheCount()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        showPanel(panel);
        panel.setResultLingerMs(0);
        QSignalSpy count(&panel, &ApprovalPanel::pendingCountChanged);
        QSignalSpy removed(&panel, &ApprovalPanel::cardRemoved);
        QSignalSpy answered(&panel, &ApprovalPanel::answered);
        panel.addRequest(commandRequest(1, {"git", "push"}, clock.unixMs() + 60000));
        panel.addRequest(commandRequest(2, {"git", "fetch"}, clock.unixMs() + 60000));
        QCOMPARE(panel.pendingCount(), 2);
        QCOMPARE(count.count(), 2);
        QCOMPARE(count.last().at(0).toInt(), 2);

        panel.card(1)->setDuration(sb::ApprovalDuration::Session);
        QTest::mouseClick(panel.card(1)->allowButton(), Qt::LeftButton);
        QCOMPARE(answered.count(), 1);
        panel.resolve(outcomeOf(1, true, "gui", sb::ApprovalDuration::Session));
        QCOMPARE(panel.card(1), nullptr);
        QCOMPARE(panel.pendingCount(), 1);
        QCOMPARE(count.last().at(0).toInt(), 1);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(removed.at(0).at(0).value<std::uint64_t>(), std::uint64_t{1});
        QVERIFY2(panel.lastOutcomeText().contains(QStringLiteral("allowed (this session)")),
                 qPrintable(panel.lastOutcomeText()));
        QVERIFY(visibleText(&panel).contains(panel.lastOutcomeText()));

        panel.resolve(outcomeOf(2, false, "sandbench-cli approve"));
        QCOMPARE(panel.pendingCount(), 0);
        QCOMPARE(count.last().at(0).toInt(), 0);
        QVERIFY2(
            panel.lastOutcomeText().contains(QStringLiteral("denied by sandbench-cli approve")),
            qPrintable(panel.lastOutcomeText()));
        QVERIFY(visibleText(&panel).contains(QStringLiteral("No pending approvals")));
    }

    void outcomeShowsOnTheCardUntilItLeaves()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        panel.setResultLingerMs(50);
        QSignalSpy removed(&panel, &ApprovalPanel::cardRemoved);
        panel.addRequest(commandRequest(1, {"git", "push"}, clock.unixMs() + 2000));
        sb::ApprovalOutcome timedOut;
        timedOut.id = 1;
        timedOut.timedOut = true;
        panel.resolve(timedOut);
        QCOMPARE(panel.pendingCount(), 0); // resolved at once, even while the card lingers
        ApprovalCard* card = panel.card(1);
        QVERIFY(card);
        QCOMPARE(card->statusText(), QStringLiteral("timed out, denied"));
        QVERIFY(visibleText(card).contains(QStringLiteral("timed out, denied")));
        // Nothing left to answer: the buttons and boxes are gone from the card.
        QVERIFY(!card->allowButton()->isVisibleTo(card));
        QVERIFY(!card->durationBox()->isVisibleTo(card));
        QVERIFY(removed.wait(5000));
        QCOMPARE(panel.card(1), nullptr);
        QVERIFY2(panel.lastOutcomeText().contains(QStringLiteral("timed out")),
                 qPrintable(panel.lastOutcomeText()));
    }

    void cardUnderThePointerStaysUntilItLeaves()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        panel.setResultLingerMs(10);
        panel.resize(400, 600);
        panel.show();
        QSignalSpy removed(&panel, &ApprovalPanel::cardRemoved);
        panel.addRequest(commandRequest(1, {"git", "push"}, clock.unixMs() + 60000));
        panel.addRequest(commandRequest(2, {"git", "pull"}, clock.unixMs() + 60000));
        QWidget* viewport = panel.findChild<QScrollArea*>()->viewport();
        QEnterEvent enter(QPointF(10, 10), QPointF(10, 10), QPointF(10, 10));
        QCoreApplication::sendEvent(viewport, &enter);
        sb::ApprovalOutcome cancelled;
        cancelled.id = 1;
        cancelled.cancelled = true;
        panel.resolve(cancelled);
        // Well past the linger time: the card stays, so #2 does not jump under the pointer.
        QTest::qWait(200);
        QCOMPARE(removed.count(), 0);
        QVERIFY(panel.card(1));
        QVERIFY2(panel.card(1)->statusText().contains(QStringLiteral("cancelled")),
                 qPrintable(panel.card(1)->statusText()));
        QEvent leave(QEvent::Leave);
        QCoreApplication::sendEvent(viewport, &leave);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(panel.card(1), nullptr);
        QVERIFY(panel.card(2));
    }

    void outcomeAnsweredElsewhereSaysWho()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        panel.setResultLingerMs(0);
        panel.addRequest(networkRequest(9, "example.com", clock.unixMs() + 60000));
        panel.resolve(outcomeOf(9, true, "tty", sb::ApprovalDuration::Always));
        QCOMPARE(panel.lastOutcomeText(),
                 QStringLiteral("#9 example.com:443: allowed by tty (always)"));
        // An outcome for a request this window never saw still reports.
        panel.resolve(outcomeOf(12, false, "mcp"));
        QVERIFY2(panel.lastOutcomeText().startsWith(QStringLiteral("#12: denied by mcp")),
                 qPrintable(panel.lastOutcomeText()));
    }

    void duplicateRequestIsIgnored()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        panel.setResultLingerMs(0);
        QSignalSpy count(&panel, &ApprovalPanel::pendingCountChanged);
        const auto request = commandRequest(5, {"git", "push"}, clock.unixMs() + 60000);
        panel.addRequest(request);
        panel.addRequest(request);
        QCOMPARE(panel.cards().size(), std::size_t{1});
        QCOMPARE(panel.pendingCount(), 1);
        QCOMPARE(count.count(), 1);
        // Nor does a resolved request come back (the welcome's pending list may be older news).
        panel.resolve(outcomeOf(5, false, "tty"));
        panel.addRequest(request);
        QCOMPARE(panel.card(5), nullptr);
        QCOMPARE(panel.pendingCount(), 0);
    }

    void placeholderAndClear()
    {
        sb::MockClock clock;
        ApprovalPanel panel(clock);
        panel.resize(400, 400);
        panel.show();
        QVERIFY(visibleText(&panel).contains(QStringLiteral("No pending approvals")));
        panel.addRequest(commandRequest(1, {"git", "push"}, clock.unixMs() + 60000));
        panel.addRequest(networkRequest(2, "example.com", clock.unixMs() + 60000));
        QVERIFY(!visibleText(&panel).contains(QStringLiteral("No pending approvals")));
        QSignalSpy count(&panel, &ApprovalPanel::pendingCountChanged);
        panel.clear();
        QCOMPARE(panel.pendingCount(), 0);
        QCOMPARE(panel.card(1), nullptr);
        QCOMPARE(count.count(), 1);
        QCOMPARE(count.last().at(0).toInt(), 0);
        QVERIFY(visibleText(&panel).contains(QStringLiteral("No pending approvals")));
        // After a session switch the same ids may come again, from the other session.
        panel.addRequest(commandRequest(1, {"make"}, clock.unixMs() + 60000));
        QVERIFY(panel.card(1));
    }
};

QTEST_MAIN(ApprovalPanelTest)
#include "ApprovalPanelTest.moc"
