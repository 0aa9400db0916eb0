// What the core decided, said in the window's language (issue 37, items 11 and 13): events and
// conflicts carry what happened (what decided a connection, what an approval asks, why a change
// conflicts) beside the CLI's English text, and the window says it in English or German; a
// program's processes and file requests read as sentences, not JSON; an empty timeline says why.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "activity/ActivityModel.h"
#include "activity/ActivityView.h"
#include "approvals/ApprovalCard.h"
#include "base/Clock.h"
#include "files/ConflictText.h"
#include "settings/Language.h"

#include <QLabel>
#include <QLineEdit>
#include <QScopeGuard>
#include <QTest>
#include <nlohmann/json.hpp>

using json = nlohmann::json;
using sbui::ActivityModel;

namespace {

constexpr std::int64_t kStart = 1'700'000'000'000;

// As SessionLoop sends them.
std::vector<json> events()
{
    return {
        {{"kind", "network"},
         {"type", "decided"},
         {"host", "tracker.invalid"},
         {"port", 443},
         {"decision", "deny"},
         {"rule", "rule 2 (deny *.invalid)"},
         {"decided_by", "rule"},
         {"rule_number", 2},
         {"asked", false},
         {"time_unix_ms", kStart + 100}},
        {{"kind", "network"},
         {"type", "decided"},
         {"host", "example.com"},
         {"port", 443},
         {"decision", "allow"},
         {"rule", "default (allow)"},
         {"decided_by", "default"},
         {"asked", false},
         {"time_unix_ms", kStart + 200}},
        {{"kind", "approval"},
         {"type", "request"},
         {"request_id", 1},
         {"request", "command"},
         {"command_id", 5},
         {"what", "command touch foo (/usr/bin/touch in /work)"},
         {"argv", {"touch", "foo"}},
         {"program", "/usr/bin/touch"},
         {"cwd", "/work"},
         {"time_unix_ms", kStart + 300}},
        {{"kind", "exec"},
         {"type", "start"},
         {"id", 7},
         {"by", "sdk"},
         {"argv", {"python3", "-c", "print(1)"}},
         {"cwd", "/work"},
         {"tty", false},
         {"time_unix_ms", kStart + 400}},
        {{"kind", "exec"},
         {"type", "exit"},
         {"id", 7},
         {"by", "sdk"},
         {"exit_code", 0},
         {"signal", nullptr},
         {"timed_out", false},
         {"duration_ms", 12},
         {"time_unix_ms", kStart + 500}},
        {{"kind", "files"},
         {"op", "write"},
         {"path", "notes.md"},
         {"by", "sdk"},
         {"bytes", 12},
         {"time_unix_ms", kStart + 600}},
    };
}

QStringList summaries(const std::vector<json>& list)
{
    ActivityModel model;
    for (const json& e : list)
        model.addEvent(e);
    model.flush();
    QStringList out;
    for (int r = 0; r < model.rowCount(); ++r)
        out << model.summary(r);
    return out;
}

} // namespace

class ReasonsInTheWindowsLanguageTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    // The timeline empty, then with these events (in SANDBENCH_SHOTS_LANG's language).
    void screenshots()
    {
        sbgt::installShotLanguage();
        auto english = qScopeGuard([] { sbui::installTranslations(QStringLiteral("en")); });
        sbui::ActivityView view;
        view.show();
        sbgt::screenshot(view, QStringLiteral("activity-empty"));
        for (const json& e : events())
            view.addEvent(e);
        view.model()->flush();
        sbgt::screenshot(view, QStringLiteral("activity-reasons"));
    }

    void activityInEnglish()
    {
        QVERIFY(sbui::installTranslations(QStringLiteral("en")));
        const QStringList rows = summaries(events());
        QCOMPARE(rows,
                 QStringList({QStringLiteral("tracker.invalid:443 denied by rule 2"),
                              QStringLiteral("example.com:443 allowed by the default action"),
                              QStringLiteral("approval #1 asked: command touch foo (in /work)"),
                              QStringLiteral("process started by sdk: python3 -c 'print(1)'"),
                              QStringLiteral("process 7 ended: exit 0 (12 ms)"),
                              QStringLiteral("wrote notes.md (12 bytes), by sdk")}));
    }

    // No English word of the core's texts in a German window.
    void activityInGerman()
    {
        QVERIFY(sbui::installTranslations(QStringLiteral("de")));
        auto english = qScopeGuard([] { sbui::installTranslations(QStringLiteral("en")); });
        const QStringList rows = summaries(events());
        QCOMPARE(rows.size(), 6);
        QCOMPARE(rows[0], QStringLiteral("tracker.invalid:443 verweigert durch Regel 2"));
        QCOMPARE(rows[1], QStringLiteral("example.com:443 erlaubt durch die Standardaktion"));
        QCOMPARE(rows[2], QStringLiteral("Freigabe #1 angefragt: Befehl touch foo (in /work)"));
        for (const QString& row : rows)
            for (const char* word : {"rule", "command", "process", "wrote", "default", "{"})
                QVERIFY2(!row.contains(QLatin1String(word)), qPrintable(row));
        // The kind column too: a program's process and file request, not "exec" and "files".
        QCOMPARE(ActivityModel::kindLabel(QStringLiteral("exec")), QStringLiteral("Prozess"));
        QCOMPARE(ActivityModel::kindLabel(QStringLiteral("files")), QStringLiteral("Dateizugriff"));
    }

    // An approval card names the rule that asked in the window's language, the rule as written.
    void approvalCardNamesItsRuleInGerman()
    {
        QVERIFY(sbui::installTranslations(QStringLiteral("de")));
        auto english = qScopeGuard([] { sbui::installTranslations(QStringLiteral("en")); });
        auto askedBy = [](const std::string& rule) {
            sb::ApprovalRequest r;
            r.id = 1;
            r.kind = sb::ApprovalKind::Command;
            r.argv = {"git", "push"};
            r.program = "/usr/bin/git";
            r.rule = rule;
            sb::MockClock clock;
            sbui::ApprovalCard card(r, clock);
            for (const QLabel* label : card.findChildren<QLabel*>())
                if (label->text().startsWith(QLatin1String("nachgefragt durch")))
                    return label->text();
            return QString();
        };
        QCOMPARE(askedBy("commands.rules[0] (ask \"git push *\")"),
                 QStringLiteral("nachgefragt durch Befehlsregel 1 (ask \"git push *\")"));
        QCOMPARE(askedBy("rule 2 (ask api.example.com)"),
                 QStringLiteral("nachgefragt durch Regel 2 (ask api.example.com)"));
        QCOMPARE(askedBy("default (ask)"),
                 QStringLiteral("nachgefragt durch die Voreinstellung der Richtlinie"));
        // A process the rules refused says which rule the same way.
        const json refused = {{"kind", "exec"},
                              {"type", "end"},
                              {"id", 9},
                              {"argv", {"rm", "x"}},
                              {"denied", "commands.rules[0] (deny \"rm *\")"},
                              {"time_unix_ms", kStart + 900}};
        const QStringList rows = summaries({refused});
        QCOMPARE(rows.size(), 1);
        QVERIFY2(rows[0].contains(QStringLiteral("Befehlsregel 1 (deny \"rm *\")")),
                 qPrintable(rows[0]));
    }

    // Without the structured fields (an older recording), the CLI's text still shows.
    void olderEventsKeepTheirText()
    {
        QVERIFY(sbui::installTranslations(QStringLiteral("en")));
        json old = events()[0];
        old.erase("decided_by");
        old.erase("rule_number");
        json asked = events()[2];
        asked.erase("argv");
        QCOMPARE(
            summaries({old, asked}),
            QStringList({QStringLiteral("tracker.invalid:443 denied by rule 2 (deny *.invalid)"),
                         QStringLiteral("approval #1 asked: command touch foo "
                                        "(/usr/bin/touch in /work)")}));
    }

    void conflictsInGerman()
    {
        QVERIFY(sbui::installTranslations(QStringLiteral("de")));
        auto english = qScopeGuard([] { sbui::installTranslations(QStringLiteral("en")); });
        using Why = sb::ApplyIssue::Why;
        const sb::ApplyIssue changed("calc.py", "changed in the project since the session started",
                                     Why::ChangedInProject);
        const QString text = sbui::ConflictText::of(changed);
        QVERIFY2(!text.contains(QLatin1String("changed")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("Projekt")), qPrintable(text));
        const sb::ApplyIssue inside("tree",
                                    "'tree/a' changed in the project since the session started",
                                    Why::ChangedInsideInProject, "tree/a");
        QVERIFY(sbui::ConflictText::of(inside).contains(QLatin1String("tree/a")));
        const sb::ApplyIssue other("x", "a reason the window has no words for");
        QCOMPARE(sbui::ConflictText::of(other),
                 QStringLiteral("a reason the window has no words for"));
    }

    // The first run's empty timeline says what will show there; a filter that hides every
    // event says so instead.
    void anEmptyTimelineSaysWhy()
    {
        QVERIFY(sbui::installTranslations(QStringLiteral("en")));
        sbui::ActivityView view;
        view.resize(800, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.emptyNote()->isVisible());
        QVERIFY(view.emptyNote()->text().startsWith(QLatin1String("No activity yet")));
        view.addEvent(events()[3]);
        view.model()->flush();
        QTRY_VERIFY(!view.emptyNote()->isVisible());
        view.searchEdit()->setText(QStringLiteral("nothing like this"));
        QTRY_VERIFY(view.emptyNote()->isVisible());
        QVERIFY(view.emptyNote()->text().contains(QLatin1String("matches")));
        view.clear();
        QTRY_VERIFY(view.emptyNote()->text().startsWith(QLatin1String("No activity yet")));
    }
};

QTEST_MAIN(ReasonsInTheWindowsLanguageTest)
#include "ReasonsInTheWindowsLanguageTest.moc"
