// The pieces of the window's remote hosts (issue 40) without a host: what the Hosts field
// takes and keeps in the settings, the wait between attempts, how a remote session is named
// (SessionKey) and listed among local ones, and what a host's `sessions --json` is taken for.
#include "hosts/HostList.h"

#include "hosts/Backoff.h"
#include "hosts/RemoteHostLink.h"
#include "sessions/SessionKey.h"
#include "sessions/SessionListModel.h"

#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using sbui::HostList;

class HostListTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { QSettings().clear(); }

    void aHostIsAnSshUrlOrAnAlias()
    {
        QCOMPARE(HostList::normalize(QStringLiteral("ssh://dev@build-1:2222")),
                 QStringLiteral("ssh://dev@build-1:2222"));
        // An alias of ~/.ssh/config (or USER@HOST) as typed: ssh:// goes before it.
        QCOMPARE(HostList::normalize(QStringLiteral("  devbox ")), QStringLiteral("ssh://devbox"));
        QCOMPARE(HostList::normalize(QStringLiteral("dev@[::1]:22")),
                 QStringLiteral("ssh://dev@[::1]:22"));
        QCOMPARE(HostList::displayName(QStringLiteral("ssh://dev@build-1:2222")),
                 QStringLiteral("dev@build-1:2222"));
    }

    void whatIsNotAHostIsRefusedSayingWhy()
    {
        for (const QString& bad :
             {QStringLiteral("http://devbox"), QStringLiteral("ssh://devbox/path"),
              QStringLiteral("-oProxyCommand=x"), QStringLiteral("ssh://devbox:99999"),
              QStringLiteral("")}) {
            QString error;
            QVERIFY2(HostList::normalize(bad, &error).isEmpty(), qPrintable(bad));
            QVERIFY2(!error.isEmpty(), qPrintable(bad));
        }
        QString error;
        HostList::normalize(QStringLiteral("http://devbox"), &error);
        QVERIFY2(error.contains(QLatin1String("http")), qPrintable(error));
    }

    void hostsAreKeptInTheSettingsInTheirOrder()
    {
        QVERIFY(HostList::load().isEmpty());
        QCOMPARE(HostList::add(QStringLiteral("devbox")), QStringLiteral("ssh://devbox"));
        QCOMPARE(HostList::add(QStringLiteral("ssh://ci@runner-2")),
                 QStringLiteral("ssh://ci@runner-2"));
        QCOMPARE(HostList::add(QStringLiteral("ssh://devbox")), QStringLiteral("ssh://devbox"));
        QString error;
        QVERIFY(HostList::add(QStringLiteral("ftp://x"), &error).isEmpty());
        QVERIFY(!error.isEmpty());
        QCOMPARE(HostList::load(), (QStringList{QStringLiteral("ssh://devbox"),
                                                QStringLiteral("ssh://ci@runner-2")}));
        QSettings().sync();
        QCOMPARE(QSettings().value(QStringLiteral("remote/hosts")).toStringList().size(), 2);
        HostList::remove(QStringLiteral("ssh://devbox"));
        QCOMPARE(HostList::load(), QStringList{QStringLiteral("ssh://ci@runner-2")});
        // A hand-edited entry that is no host is left out, not dialed.
        QSettings().setValue(
            QStringLiteral("remote/hosts"),
            QStringList{QStringLiteral("ssh://-evil"), QStringLiteral("ssh://ci@runner-2")});
        QCOMPARE(HostList::load(), QStringList{QStringLiteral("ssh://ci@runner-2")});
    }

    void theWaitDoublesUpToItsLimitAndStartsAgainAfterASuccess()
    {
        sbui::Backoff backoff(1000, 60000);
        QList<int> waits;
        for (int i = 0; i < 9; ++i)
            waits << backoff.next();
        QCOMPARE(waits, (QList<int>{1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000}));
        QCOMPARE(backoff.failures(), 9);
        backoff.reset();
        QCOMPARE(backoff.next(), 1000);
        // Many failures in a row never overflow past the limit.
        int last = 0;
        for (int i = 0; i < 100; ++i) {
            const int wait = backoff.next();
            QVERIFY(wait >= last && wait <= 60000);
            last = wait;
        }
        QCOMPARE(last, 60000);
    }

    void aRemoteSessionIsNamedByItsHostAndId()
    {
        const sbui::SessionKey remote{QStringLiteral("ssh://dev@box:2222"),
                                      QStringLiteral("20261206-101500-ab12")};
        QCOMPARE(remote.toString(), QStringLiteral("ssh://dev@box:2222/20261206-101500-ab12"));
        QCOMPARE(sbui::SessionKey::parse(remote.toString()), remote);
        QVERIFY(remote.isRemote());
        const sbui::SessionKey local = sbui::SessionKey::parse(QStringLiteral("my-session"));
        QVERIFY(!local.isRemote());
        QCOMPARE(local.id, QStringLiteral("my-session"));
        QCOMPARE(local.toString(), QStringLiteral("my-session"));
    }

    void aHostsEndedSessionsAreReadFromItsListAndBadInputIsNoList()
    {
        using Link = sbui::RemoteHostLink;
        const auto listed = Link::parseRecorded(R"([
          {"id": "a", "command": ["claude"], "workspace": "/p", "state": "ended",
           "started_ns": 5000000000, "ended_ns": 7000000000, "exit_status": 2,
           "stored_bytes": 4096},
          {"id": "b", "state": "running", "started_ns": 1},
          {"id": "c", "state": "interrupted", "started_ns": 3000000, "ended_ns": null,
           "exit_status": null},
          {"id": "d", "state": "forked", "command": [1, "x"], "started_ns": "soon"},
          {"state": "ended"}, 7, null
        ])");
        QVERIFY(listed);
        QCOMPARE(listed->size(), 3u); // the running one, and those without an id, are not
        const Link::Recorded& a = listed->at(0);
        QCOMPARE(a.id, QStringLiteral("a"));
        QCOMPARE(a.command, QStringList{QStringLiteral("claude")});
        QCOMPARE(a.workspace, QStringLiteral("/p"));
        QCOMPARE(a.startedMs, 5000);
        QCOMPARE(a.endedMs, 7000);
        QCOMPARE(a.exitStatus, 2);
        QCOMPARE(a.storedBytes, 4096);
        QVERIFY(a.recorded && !a.interrupted);
        const Link::Recorded& c = listed->at(1);
        QVERIFY(c.interrupted && c.recorded);
        QCOMPARE(c.endedMs, c.startedMs); // no end known: shown as ended when it started
        QCOMPARE(c.exitStatus, -1);
        const Link::Recorded& d = listed->at(2);
        QVERIFY(!d.recorded); // changes without a recording: no replay
        QCOMPARE(d.command, QStringList{QStringLiteral("x")});
        QCOMPARE(d.startedMs, 0);
        for (const char* bad : {"", "{}", "not json", "[", "\"x\""})
            QVERIFY2(!Link::parseRecorded(bad), bad);
    }

    void theListTellsTheSameIdOnTwoHostsApartAndNamesTheHost()
    {
        sbui::SessionListModel model;
        model.setNow(2000);
        sbui::SessionEntry local;
        local.id = QStringLiteral("agent");
        local.command = {QStringLiteral("claude")};
        local.state = sbui::SessionEntry::State::Live;
        local.startedMs = 1000;
        sbui::SessionEntry remote = local;
        remote.host = QStringLiteral("ssh://devbox");
        model.update({local, remote});
        QCOMPARE(model.rowCount(), 2);
        const int localRow = model.rowOf(QStringLiteral("agent"));
        const int remoteRow = model.rowOf(QStringLiteral("ssh://devbox/agent"));
        QVERIFY(localRow >= 0 && remoteRow >= 0 && localRow != remoteRow);
        const auto text = [&](int row) {
            return model.index(row, sbui::SessionListModel::SessionColumn).data().toString();
        };
        QCOMPARE(text(localRow), QStringLiteral("agent · claude"));
        QCOMPARE(text(remoteRow), QStringLiteral("devbox: agent · claude"));
        QCOMPARE(model.index(remoteRow, 0).data(sbui::SessionListModel::IdRole).toString(),
                 QStringLiteral("ssh://devbox/agent"));
        QCOMPARE(model.index(remoteRow, 0).data(sbui::SessionListModel::HostRole).toString(),
                 QStringLiteral("ssh://devbox"));
        QVERIFY(model.index(remoteRow, 0)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QLatin1String("On ssh://devbox\n")));
        // Pending counts go to the session that has them.
        model.setPending(QStringLiteral("ssh://devbox/agent"), 2);
        QCOMPARE(model.entry(QStringLiteral("ssh://devbox/agent"))->pending, 2);
        QCOMPARE(model.entry(QStringLiteral("agent"))->pending, 0);
        QCOMPARE(model.totalPending(), 2);
        // The host's sessions gone (its connection dropped): the local one stays.
        model.update({local});
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.rowOf(QStringLiteral("agent")), 0);
    }
};

QTEST_MAIN(HostListTest)
#include "HostListTest.moc"
