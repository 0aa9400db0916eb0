// An "always" answer on an approval card is offered the rule `policy suggest` would write
// (issue 39): turning the duration to Always selects it (git push *, or the owner's domain on
// the same port for the connecting program), a preview says what it also allows, and where a
// broader rule is risky the exact one stays chosen and the card says why. In a window too,
// with a real session's request.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "approvals/ApprovalCard.h"
#include "approvals/ApprovalPanel.h"
#include "main/MainWindow.h"
#include "main/Prompt.h"
#include "policy/LearnedRules.h"
#include "sessions/SessionHub.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace sbgt;
using sbui::ApprovalCard;

namespace {

sb::ApprovalRequest commandRequest(std::vector<std::string> argv)
{
    sb::ApprovalRequest r;
    r.id = 1;
    r.kind = sb::ApprovalKind::Command;
    r.program = "/usr/bin/" + argv.front();
    r.argv = std::move(argv);
    r.cwd = "/home/u/project";
    r.rule = "commands.rules[0] (ask \"git push *\")";
    return r;
}

sb::ApprovalRequest networkRequest(const std::string& host, const std::string& program)
{
    sb::ApprovalRequest r;
    r.id = 2;
    r.kind = sb::ApprovalKind::Network;
    r.host = host;
    r.port = 443;
    r.protocol = "connect";
    r.rule = "default";
    r.process = {{12, program, {program}}};
    return r;
}

sb::ApprovalAnswer allowed(ApprovalCard& card)
{
    QSignalSpy answered(&card, &ApprovalCard::answered);
    card.allowButton()->click();
    return answered.isEmpty() ? sb::ApprovalAnswer{}
                              : answered.at(0).at(1).value<sb::ApprovalAnswer>();
}

const QByteArray kAskPush = R"({
  "version": 1,
  "network": {"mode": "none"},
  "commands": {"default": "allow", "rules": [{"action": "ask", "match": "git push *"}]},
  "approvals": {"timeout_seconds": 120, "on_timeout": "deny"}
})";

} // namespace

class ApprovalSuggestedRuleTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        installShotLanguage();
    }

    void alwaysChoosesTheSubcommandsPatternAndSaysWhatItAlsoAllows()
    {
        sb::MockClock clock;
        ApprovalCard card(commandRequest({"git", "push", "origin", "main"}), clock);
        QVERIFY(card.suggestedScopeIndex() >= 0);
        const QString tip =
            card.scopeBox()->itemData(card.suggestedScopeIndex(), Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(u"Suggested") && tip.contains(u"git push *"), qPrintable(tip));
        QCOMPARE(card.scope(), sb::ApprovalScope::ExactCommand); // once: nothing to generalise
        QVERIFY(card.previewText().isEmpty());
        card.setDuration(sb::ApprovalDuration::Always);
        QCOMPARE(card.scope(), sb::ApprovalScope::Subcommand);
        const QString preview = card.previewText();
        QVERIFY2(preview.contains(u"git push *") && preview.contains(u"git push --force") &&
                     preview.contains(u"any other arguments"),
                 qPrintable(preview));
        const auto* label = card.findChild<QLabel*>(QStringLiteral("preview"));
        QVERIFY(label && label->isVisibleTo(&card) && label->text() == preview);
        const sb::ApprovalAnswer a = allowed(card);
        QCOMPARE(a.scope, sb::ApprovalScope::Subcommand);
        QCOMPARE(a.duration, sb::ApprovalDuration::Always);
    }

    // The user's choice stands: the suggestion is made once, on first turning to Always.
    void theExactRuleStaysAChoice()
    {
        sb::MockClock clock;
        ApprovalCard card(commandRequest({"git", "push", "origin", "main"}), clock);
        card.setDuration(sb::ApprovalDuration::Always);
        QVERIFY(card.setScope(sb::ApprovalScope::ExactCommand));
        QVERIFY2(card.previewText().startsWith(u"Suggested: "), qPrintable(card.previewText()));
        card.setDuration(sb::ApprovalDuration::Session);
        QVERIFY(card.previewText().isEmpty());
        card.setDuration(sb::ApprovalDuration::Always);
        QCOMPARE(card.scope(), sb::ApprovalScope::ExactCommand);
        QCOMPARE(allowed(card).scope, sb::ApprovalScope::ExactCommand);
    }

    void aHostsSuggestionKeepsThePortAndTheProgram()
    {
        sb::MockClock clock;
        const auto request = networkRequest("git.forge.example", "/usr/bin/git");
        ApprovalCard card(request, clock);
        QVERIFY(card.suggestedScopeIndex() >= 0);
        card.setDuration(sb::ApprovalDuration::Always);
        QCOMPARE(card.scope(), sb::ApprovalScope::Domain);
        QVERIFY(card.programOnlyBox() && card.programOnlyBox()->isChecked());
        QVERIFY2(card.previewText().contains(u"every name under forge.example on port 443"),
                 qPrintable(card.previewText()));
        const sb::ApprovalAnswer a = allowed(card);
        QVERIFY(a.samePort && a.programOnly);
        // What the supervisor saves for it.
        auto rule = sb::ruleFromAnswer(request, a);
        QVERIFY(rule);
        const auto& network = std::get<sb::NetworkRule>(*rule);
        QCOMPARE(QString::fromStdString(network.host), QStringLiteral("*.forge.example"));
        QCOMPARE(network.ports, std::vector<std::uint16_t>{443});
        QVERIFY(!network.program.empty());
        // The plain domain scope is still there, for any port.
        ApprovalCard plain(request, clock);
        plain.setDuration(sb::ApprovalDuration::Always);
        QVERIFY(plain.setScope(sb::ApprovalScope::Domain));
        QVERIFY(!allowed(plain).samePort);
    }

    void aRiskyGeneralisationLeavesTheExactRuleChosen()
    {
        sb::MockClock clock;
        ApprovalCard interpreter(commandRequest({"python3", "build.py"}), clock);
        QCOMPARE(interpreter.suggestedScopeIndex(), -1);
        interpreter.setDuration(sb::ApprovalDuration::Always);
        QCOMPARE(interpreter.scope(), sb::ApprovalScope::ExactCommand);
        QVERIFY2(interpreter.previewText().contains(u"python3 *"),
                 qPrintable(interpreter.previewText()));
        ApprovalCard curl(networkRequest("paste.drop.example", "/usr/bin/curl"), clock);
        curl.setDuration(sb::ApprovalDuration::Always);
        QCOMPARE(curl.scope(), sb::ApprovalScope::HostPort);
        QVERIFY2(curl.previewText().contains(u"curl sends and fetches whatever it is told"),
                 qPrintable(curl.previewText()));
        QVERIFY(!allowed(curl).samePort);
    }

    // A real session's request in the window, answered "always" with the suggestion.
    void inTheWindow()
    {
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
        QSettings().clear();
        sbui::prompt::setNextAnswer(std::nullopt);
        QString error;
        auto session =
            HeadlessSession::start(m_world, QStringLiteral("always-push"),
                                   {QStringLiteral("--policy"), m_world.writePolicy(kAskPush)},
                                   {QStringLiteral("bash"), QStringLiteral("-c"),
                                    QStringLiteral("echo agent; git push origin main; sleep 600")},
                                   &error);
        QVERIFY2(session, qPrintable(error));
        sbui::MainWindow window;
        window.resize(1440, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.selectSession(session->id()));
        sbui::ApprovalPanel* panel = window.approvals();
        QTRY_COMPARE_WITH_TIMEOUT(panel->pendingCount(), 1, 20000);
        ApprovalCard* card = panel->card(session->id(), 1);
        QVERIFY(card);
        card->setDuration(sb::ApprovalDuration::Always);
        QCOMPARE(card->scope(), sb::ApprovalScope::Subcommand);
        const auto* label = card->findChild<QLabel*>(QStringLiteral("preview"));
        QTRY_VERIFY(label && label->isVisible());
        screenshot(window, QStringLiteral("approval-always-suggested"));
        card->denyButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(window.hub()->pending(session->id()).empty(), 20000);
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(ApprovalSuggestedRuleTest)
#include "ApprovalSuggestedRuleTest.moc"
