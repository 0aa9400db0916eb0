// The workspace tree over hand-made sessions: markers for added, modified and deleted entries
// and per-folder counts, live updates as files appear in the upper layer, the "changed only"
// filter, the model's consistency (QAbstractItemModelTester), and a 100,000-file project that
// opens lazily.
#include "files/WorkspaceModel.h"

#include "GuiTestSupport.h"
#include "WorkspaceTestSupport.h"
#include "files/ChangedOnlyFilter.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

using namespace sbgt;
using sbui::ChangeMarker;
using sbui::WorkspaceModel;

namespace {

ChangeMarker markerOf(const WorkspaceModel& model, const QString& path)
{
    return static_cast<ChangeMarker>(
        model.indexForPath(path).data(WorkspaceModel::MarkerRole).toInt());
}

// Every entry the model holds, with its marker and count: "path [marker] (count)".
QString treeText(const QAbstractItemModel& model, const QModelIndex& parent = {}, int depth = 0)
{
    QString out;
    for (int r = 0; r < model.rowCount(parent); ++r) {
        const QModelIndex index = model.index(r, 0, parent);
        out += QString(depth * 2, QLatin1Char(' ')) +
               index.data(WorkspaceModel::PathRole).toString() + QStringLiteral(" [") +
               model.index(r, 1, parent).data().toString() + QStringLiteral("]\n");
        out += treeText(model, index, depth + 1);
    }
    return out;
}

// Fetches every folder the model knows of, and again as listings bring more.
void fetchAll(QAbstractItemModel& model, const QModelIndex& parent = {})
{
    if (model.canFetchMore(parent)) model.fetchMore(parent);
    for (int r = 0; r < model.rowCount(parent); ++r)
        fetchAll(model, model.index(r, 0, parent));
}

} // namespace

class WorkspaceModelTest : public QObject {
    Q_OBJECT

    std::unique_ptr<TestWorld> m_world;
    std::unique_ptr<HandMadeSession> m_session;

    // A project with a bit of everything, and a session that changed some of it. Returns why
    // not where this machine cannot make an upper layer by hand.
    QString makeSession(const QString& id)
    {
        const QString ws = m_world->workspace();
        writeFile(ws + "/a.txt", "a\n");
        writeFile(ws + "/b.txt", "b\n");
        writeFile(ws + "/same.txt", "same\n");
        writeFile(ws + "/src/main.c", "int main() {}\n");
        writeFile(ws + "/src/util.c", "util\n");
        writeFile(ws + "/docs/readme.md", "read me\n");
        QString error;
        m_session = HandMadeSession::create(*m_world, id, &error);
        if (!m_session) return error;
        m_session->write("a.txt", "a, changed\n");
        m_session->write("new.txt", "new\n");
        m_session->write("src/util.c", "util, changed\n");
        m_session->write("src/extra/x.c", "x\n");
        if (!m_session->whiteout("b.txt") || !m_session->whiteout("docs"))
            return QStringLiteral("cannot create a whiteout");
        return {};
    }

  private Q_SLOTS:
    void init() { m_world = std::make_unique<TestWorld>(); }
    void cleanup()
    {
        m_session.reset();
        m_world.reset();
    }

    void markersAndCounts()
    {
        if (QString why = makeSession("markers"); !why.isEmpty()) SBG_SKIP(why);
        WorkspaceModel model;
        QSignalSpy updated(&model, &WorkspaceModel::changesUpdated);
        model.setWorkspace(m_session->project(), m_session->upper(), m_session->info().startedNs);
        model.fetchMore({});
        QTRY_COMPARE(updated.count(), 1);
        // Files, and folders that hold nothing else: src/extra holds x.c, so it does not count.
        QCOMPARE(updated.front().front().toInt(), 6);
        QCOMPARE(model.changeCount(), 6);
        QTRY_VERIFY(model.indexForPath("same.txt").isValid()); // from the real listing
        QCOMPARE(markerOf(model, "a.txt"), ChangeMarker::Modified);
        QCOMPARE(markerOf(model, "new.txt"), ChangeMarker::Added);
        QCOMPARE(markerOf(model, "b.txt"), ChangeMarker::Deleted);
        QCOMPARE(markerOf(model, "docs"), ChangeMarker::Deleted);
        QCOMPARE(markerOf(model, "same.txt"), ChangeMarker::None);
        const QModelIndex src = model.indexForPath("src");
        QCOMPARE(src.data(WorkspaceModel::ChangeCountRole).toInt(), 2);
        QCOMPARE(model.indexForPath("src", WorkspaceModel::ChangeColumn).data().toString(), "2");
        QCOMPARE(model.indexForPath("a.txt", WorkspaceModel::ChangeColumn).data().toString(),
                 sbui::ReviewStyle::markerName(ChangeMarker::Modified));
        QVERIFY(!model.indexForPath("a.txt", WorkspaceModel::ChangeColumn)
                     .data(Qt::DecorationRole)
                     .value<QIcon>()
                     .isNull());
        // One icon a marker, not one parsed per row asked (issue 37, item 7).
        const auto icon = [&](const char* path) {
            return model.indexForPath(path, WorkspaceModel::ChangeColumn)
                .data(Qt::DecorationRole)
                .value<QIcon>()
                .cacheKey();
        };
        QCOMPARE(icon("a.txt"), icon("a.txt"));
        QCOMPARE(icon("new.txt"), icon("new.txt"));
        // A deleted name is struck out.
        QVERIFY(model.indexForPath("b.txt").data(Qt::FontRole).value<QFont>().strikeOut());

        // The way to a change is there before the folder is listed; the rest comes with it.
        model.fetchMore(src);
        QVERIFY(model.indexForPath("src/util.c").isValid() == false); // filled a moment later
        QTRY_VERIFY(model.indexForPath("src/util.c").isValid());
        QCOMPARE(markerOf(model, "src/extra"), ChangeMarker::Added);
        QTRY_VERIFY(model.indexForPath("src/main.c").isValid());
        QCOMPARE(markerOf(model, "src/main.c"), ChangeMarker::None);
        model.fetchMore(model.indexForPath("src/extra"));
        QTRY_COMPARE(markerOf(model, "src/extra/x.c"), ChangeMarker::Added);

        // What is inside a deleted folder shows deleted, but is no change of its own.
        model.fetchMore(model.indexForPath("docs"));
        QTRY_VERIFY(model.indexForPath("docs/readme.md").isValid());
        QCOMPARE(markerOf(model, "docs/readme.md"), ChangeMarker::Deleted);
        QVERIFY(!model.indexForPath("docs/readme.md").data(WorkspaceModel::IsChangeRole).toBool());
    }

    void modelStaysConsistent()
    {
        if (QString why = makeSession("tester"); !why.isEmpty()) SBG_SKIP(why);
        WorkspaceModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setWorkspace(m_session->project(), m_session->upper(), m_session->info().startedNs);
        QSignalSpy updated(&model, &WorkspaceModel::changesUpdated);
        QTRY_VERIFY(updated.count() >= 1);
        for (int round = 0; round < 5; ++round) {
            fetchAll(model);
            QTest::qWait(20);
        }
        // Live changes: entries appear, change kind, and go.
        m_session->write("later/deep/file.txt", "x");
        QVERIFY(QFile::remove(m_session->upper() + "/new.txt"));
        QVERIFY(m_session->whiteout("same.txt"));
        QTRY_VERIFY(model.indexForPath("later").isValid());
        QTRY_VERIFY(!model.indexForPath("new.txt").isValid());
        fetchAll(model);
        QTRY_COMPARE(markerOf(model, "same.txt"), ChangeMarker::Deleted);
        QTRY_VERIFY(model.indexForPath("later/deep/file.txt").isValid());

        sbui::ChangedOnlyFilter filter;
        QAbstractItemModelTester filterTester(
            &filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&model);
        filter.setChangedOnly(true);
        fetchAll(filter);
        filter.setChangedOnly(false);
        QVERIFY(!QTest::currentTestFailed());
    }

    void liveUpdatesFromTheUpperLayer()
    {
        if (QString why = makeSession("live"); !why.isEmpty()) SBG_SKIP(why);
        WorkspaceModel model;
        model.setWorkspace(m_session->project(), m_session->upper(), m_session->info().startedNs);
        model.fetchMore({});
        QTRY_COMPARE(model.changeCount(), 6);
        QVERIFY(model.watcher()->watchCount() > 0);
        QVERIFY(!model.watcher()->isPolling());

        m_session->write("appeared.txt", "hello");
        QTRY_COMPARE(markerOf(model, "appeared.txt"), ChangeMarker::Added);
        QCOMPARE(model.changeCount(), 7);

        // A folder made after the watch started is watched too.
        QDir().mkpath(m_session->upper() + "/made/later");
        QTRY_VERIFY(model.indexForPath("made").isValid());
        m_session->write("made/later/inside.txt", "x");
        QTRY_COMPARE(model.marker("made/later/inside.txt"), ChangeMarker::Added);

        // The agent deletes a real file: its marker turns.
        QVERIFY(m_session->whiteout("same.txt"));
        QTRY_COMPARE(markerOf(model, "same.txt"), ChangeMarker::Deleted);

        // It removes what it added: the entry goes, as the real project never had it.
        QVERIFY(QFile::remove(m_session->upper() + "/appeared.txt"));
        QTRY_VERIFY(!model.indexForPath("appeared.txt").isValid());
        // A real file whose change goes stays, unmarked.
        QVERIFY(QFile::remove(m_session->upper() + "/a.txt"));
        QTRY_COMPARE(markerOf(model, "a.txt"), ChangeMarker::None);
        QVERIFY(model.indexForPath("a.txt").isValid());
    }

    // The real project is not watched: Refresh lists the folders shown again, keeping them.
    void reloadShowsChangesByOtherHands()
    {
        if (QString why = makeSession("reload"); !why.isEmpty()) SBG_SKIP(why);
        WorkspaceModel model;
        model.setWorkspace(m_session->project(), m_session->upper(), m_session->info().startedNs);
        model.fetchNow({});
        QTRY_VERIFY(model.indexForPath("src").isValid());
        model.fetchNow("src");
        QTRY_VERIFY(model.indexForPath("src/main.c").isValid());
        writeFile(m_world->workspace() + "/src/fresh.c", "fresh");
        QVERIFY(QFile::remove(m_world->workspace() + "/same.txt"));
        model.reload();
        QTRY_VERIFY(model.indexForPath("src/fresh.c").isValid());
        QTRY_VERIFY(!model.indexForPath("same.txt").isValid());
        QVERIFY(model.indexForPath("src/main.c").isValid());
        QCOMPARE(markerOf(model, "src/fresh.c"), ChangeMarker::None);
    }

    // Issue 37, item 13: the tree sorts names as a file manager does, f1, f2, f10, f100.
    void namesInNaturalOrder()
    {
        const QString ws = m_world->workspace();
        for (const char* name : {"f10", "f1", "F2", "f100", "a"})
            writeFile(ws + QLatin1Char('/') + QLatin1String(name), "x\n");
        QString error;
        m_session = HandMadeSession::create(*m_world, QStringLiteral("natural"), &error);
        if (!m_session) SBG_SKIP(error);
        m_session->write("f3", "new\n");
        WorkspaceModel model;
        model.setWorkspace(m_session->project(), m_session->upper(), m_session->info().startedNs);
        model.fetchNow({});
        QTRY_COMPARE(model.rowCount(), 6);
        QStringList names;
        for (int r = 0; r < model.rowCount(); ++r)
            names << model.index(r, 0).data().toString();
        QCOMPARE(names, (QStringList{"a", "f1", "F2", "f3", "f10", "f100"}));
    }

    void changedOnlyFilter()
    {
        if (QString why = makeSession("filter"); !why.isEmpty()) SBG_SKIP(why);
        WorkspaceModel model;
        sbui::ChangedOnlyFilter filter;
        filter.setSourceModel(&model);
        model.setWorkspace(m_session->project(), m_session->upper(), m_session->info().startedNs);
        filter.fetchMore({});
        QTRY_VERIFY(model.indexForPath("same.txt").isValid());
        auto names = [&](const QModelIndex& parent) {
            QStringList out;
            for (int r = 0; r < filter.rowCount(parent); ++r)
                out << filter.index(r, 0, parent).data().toString();
            return out;
        };
        QCOMPARE(names({}), (QStringList{"docs", "src", "a.txt", "b.txt", "new.txt", "same.txt"}));
        filter.setChangedOnly(true);
        QCOMPARE(names({}), (QStringList{"docs", "src", "a.txt", "b.txt", "new.txt"}));
        const QModelIndex src = filter.mapFromSource(model.indexForPath("src"));
        filter.fetchMore(src);
        QTRY_VERIFY(model.indexForPath("src/main.c").isValid());
        QCOMPARE(names(src), (QStringList{"extra", "util.c"}));
        // A change appearing later shows in the filtered view too.
        m_session->write("src/late.c", "late");
        QTRY_COMPARE(names(src), (QStringList{"extra", "late.c", "util.c"}));
        filter.setChangedOnly(false);
        QCOMPARE(names(src), (QStringList{"extra", "late.c", "main.c", "util.c"}));
    }

    // 100,000 files: the tree opens and scrolls with only what is on screen read, each folder
    // listed off the GUI thread when expanded.
    void largeProjectOpensLazily()
    {
        const QString ws = m_world->workspace();
        for (int d = 0; d < 80; ++d) {
            const QString dir = ws + QStringLiteral("/dir%1").arg(d, 3, 10, QLatin1Char('0'));
            QDir().mkpath(dir);
            for (int f = 0; f < 1000; ++f) {
                QFile file(dir + QStringLiteral("/f%1.txt").arg(f, 4, 10, QLatin1Char('0')));
                QVERIFY(file.open(QIODevice::WriteOnly));
            }
        }
        QDir().mkpath(ws + "/big");
        for (int f = 0; f < 20000; ++f) {
            QFile file(ws + QStringLiteral("/big/g%1.txt").arg(f, 5, 10, QLatin1Char('0')));
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        QString error;
        m_session = HandMadeSession::create(*m_world, "large", &error);
        if (!m_session) SBG_SKIP(error);
        m_session->write("dir057/f0500.txt", "changed");

        WorkspaceModel model;
        sbui::ChangedOnlyFilter filter;
        filter.setSourceModel(&model);
        QTreeView view;
        view.setUniformRowHeights(true);
        view.setModel(&filter);
        view.resize(600, 400);
        view.show();
        model.setWorkspace(m_session->project(), m_session->upper(), m_session->info().startedNs);
        QTRY_COMPARE(filter.rowCount(), 81);
        QTRY_COMPARE(model.changeCount(), 1);
        // Nothing below the top was read, but the way to the change.
        QCOMPARE(model.loadedNodeCount(), 1 + 81);
        QCOMPARE(model.marker("dir057/f0500.txt"), ChangeMarker::Modified);
        QCOMPARE(model.indexForPath("dir057").data(WorkspaceModel::ChangeCountRole).toInt(), 1);

        const QModelIndex big = filter.mapFromSource(model.indexForPath("big"));
        view.expand(big);
        QTRY_COMPARE_WITH_TIMEOUT(filter.rowCount(big), 20000, 20000);
        view.scrollToBottom();
        QTest::qWait(1); // paints the rows at the bottom
        view.scrollTo(filter.index(10000, 0, big));
        QCOMPARE(filter.index(19999, 0, big).data().toString(), "g19999.txt");
        QVERIFY(model.loadedNodeCount() < 21000);
    }
};

QTEST_MAIN(WorkspaceModelTest)
#include "WorkspaceModelTest.moc"
