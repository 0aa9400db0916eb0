#include "ReplayView.h"

#include "ReplayController.h"
#include "ReplayScrubber.h"
#include "ReplayTime.h"
#include "activity/ActivityView.h"
#include "base/ActivityKinds.h"
#include "main/Prompt.h"
#include "terminal/TerminalWidget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QRegularExpression>
#include <QScrollBar>
#include <QShortcut>
#include <QSplitter>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace sbui {
namespace {

using MarkerKind = ReplayScrubber::MarkerKind;

constexpr double kSpeeds[] = {0.25, 0.5, 1, 2, 4, 8, 16};
constexpr int kHitRole = Qt::UserRole + 1; // qint64 ns of a search hit
constexpr int kMinSearchPanel = 220;       // px the search keeps beside the terminal

std::string field(const nlohmann::json& e, const char* key)
{
    auto it = e.find(key);
    return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Which activity events the scrubber marks, and how: commands, decided connections, approval
// requests and answers, refusals of any of these; file changes, limits, learned rules and
// errors as plain ticks. Lifecycle steps and connection closes are not marked.
std::optional<MarkerKind> markerKindOf(const nlohmann::json& event)
{
    namespace activity = sb::activity;
    const std::string kind = field(event, "kind");
    const std::string type = field(event, "type");
    const bool denied = field(event, "decision") == "deny";
    if (kind == activity::kCommand) return denied ? MarkerKind::Denial : MarkerKind::Command;
    if (kind == activity::kNetwork) {
        if (type != "decided") return std::nullopt;
        return denied ? MarkerKind::Denial : MarkerKind::Connection;
    }
    if (kind == activity::kApproval)
        return type != "request" && denied ? MarkerKind::Denial : MarkerKind::Approval;
    if (kind == activity::kFile || kind == activity::kLimit || kind == activity::kPolicy ||
        kind == activity::kError)
        return MarkerKind::Other;
    return std::nullopt;
}

// A hit's line in the list: the snippet cut in front so that the match itself is near the start
// and survives the eliding of a narrow list.
QString hitText(const QString& snippet, const QString& searched)
{
    constexpr qsizetype kBefore = 12; // characters of context kept before the match
    const qsizetype at = snippet.indexOf(searched.simplified(), 0, Qt::CaseInsensitive);
    if (at <= kBefore + 1) return snippet;
    return QStringLiteral("…") + snippet.mid(at - kBefore);
}

QToolButton* toolButton(QWidget* parent, QStyle::StandardPixmap icon, const QString& text,
                        const QString& tip)
{
    auto* button = new QToolButton(parent);
    button->setIcon(parent->style()->standardIcon(icon));
    button->setText(text);
    button->setToolTip(tip);
    button->setAutoRaise(true);
    return button;
}

} // namespace

ReplayView::ReplayView(ActivityView* timeline, QWidget* parent)
    : QWidget(parent), m_activity(timeline)
{
    m_terminal = new TerminalWidget(this);
    m_controller = new ReplayController(m_terminal, this);
    m_scrubber = new ReplayScrubber(this);
    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A long command line in the status must not widen the view.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    // The terminal and the search hits side by side; the timeline is the window's own.
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->addWidget(m_terminal);
    m_split->addWidget(buildSearchPanel());
    // The terminal has the recording's fixed size: a wider window widens the search.
    m_split->setStretchFactor(0, 0);
    m_split->setStretchFactor(1, 1);
    m_split->setChildrenCollapsible(false);
    connect(m_split, &QSplitter::splitterMoved, this, [this] { m_fitPending = false; });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addWidget(buildControls());
    layout->addWidget(m_scrubber);
    layout->addWidget(m_split, 1);
    layout->addWidget(m_status);

    connect(m_controller, &ReplayController::positionChanged, this, &ReplayView::onPositionChanged);
    connect(m_controller, &ReplayController::playingChanged, this, &ReplayView::onPlayingChanged);
    connect(m_controller, &ReplayController::failed, this,
            [this](const QString& message) { setStatus(message, true); });
    connect(m_scrubber, &ReplayScrubber::seekRequested, m_controller, &ReplayController::seek);
    connect(m_activity->table(), &QTreeView::clicked, this, &ReplayView::onActivityClicked);
    connect(m_activity->table(), &QTreeView::activated, this, &ReplayView::onActivityClicked);

    auto shortcut = [this](const QKeySequence& keys, auto slot) {
        auto* s = new QShortcut(keys, this);
        s->setContext(Qt::WidgetWithChildrenShortcut);
        connect(s, &QShortcut::activated, this, slot);
    };
    shortcut(QKeySequence(Qt::Key_Space), [this] { m_controller->togglePlaying(); });
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_Right), [this] { nextEvent(); });
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_Left), [this] { previousEvent(); });
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_G), [this] {
        m_time->setFocus(Qt::ShortcutFocusReason);
        m_time->selectAll();
    });
    shortcut(QKeySequence(Qt::Key_Slash), [this] {
        m_search->setFocus(Qt::ShortcutFocusReason);
        m_search->selectAll();
    });
    setEnabled(false);
}

ReplayView::~ReplayView() = default;

QWidget* ReplayView::buildControls()
{
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(4);

    m_previous = toolButton(bar, QStyle::SP_MediaSkipBackward, tr("Previous event"),
                            tr("Previous event (Ctrl+Left)"));
    m_play = toolButton(bar, QStyle::SP_MediaPlay, tr("Play"), tr("Play (Space)"));
    m_next = toolButton(bar, QStyle::SP_MediaSkipForward, tr("Next event"),
                        tr("Next event (Ctrl+Right)"));
    connect(m_previous, &QToolButton::clicked, this, [this] { previousEvent(); });
    connect(m_play, &QToolButton::clicked, m_controller, &ReplayController::togglePlaying);
    connect(m_next, &QToolButton::clicked, this, [this] { nextEvent(); });

    m_speed = new QComboBox(bar);
    for (double speed : kSpeeds)
        m_speed->addItem(tr("%1×").arg(QLocale().toString(speed)), speed);
    m_speed->setCurrentIndex(2);
    m_speed->setToolTip(tr("Playback speed"));
    connect(m_speed, &QComboBox::currentIndexChanged, this,
            [this](int index) { m_controller->setSpeed(m_speed->itemData(index).toDouble()); });

    m_realTime = new QCheckBox(tr("Real time"), bar);
    m_realTime->setToolTip(tr("Play pauses as long as they were; otherwise each pause over 2 s "
                              "plays as 2 s"));
    m_idleNote = new QLabel(tr("pauses over 2 s shortened"), bar);
    m_idleNote->setForegroundRole(QPalette::PlaceholderText);
    m_idleNote->setToolTip(m_realTime->toolTip());
    connect(m_realTime, &QCheckBox::toggled, this, [this](bool on) {
        m_controller->setRealTime(on);
        m_idleNote->setVisible(!on);
    });

    m_positionLabel = new QLabel(bar);
    m_positionLabel->setToolTip(tr("Position / length of the recording"));

    m_time = new QLineEdit(bar);
    m_time->setPlaceholderText(tr("Go to (1:30)"));
    m_time->setToolTip(tr("Jump to a time: 90, 1m30s or 1:30 (Ctrl+G)"));
    m_time->setClearButtonEnabled(true);
    m_time->setMaximumWidth(m_time->fontMetrics().horizontalAdvance(u'0') * 16);
    connect(m_time, &QLineEdit::returnPressed, this, [this] { jumpTo(m_time->text()); });

    m_export = new QToolButton(bar);
    m_export->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    m_export->setText(tr("Export…"));
    m_export->setToolTip(tr("Save the recording as asciicast v2 or JSON Lines"));
    m_export->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_export->setAutoRaise(true);
    connect(m_export, &QToolButton::clicked, this, &ReplayView::exportWithDialog);

    row->addWidget(m_previous);
    row->addWidget(m_play);
    row->addWidget(m_next);
    row->addSpacing(6);
    row->addWidget(m_speed);
    row->addWidget(m_realTime);
    row->addWidget(m_idleNote);
    row->addSpacing(6);
    row->addWidget(m_positionLabel);
    row->addStretch(1);
    row->addWidget(m_time);
    row->addWidget(m_export);
    return bar;
}

QWidget* ReplayView::buildSearchPanel()
{
    auto* searchPanel = new QWidget(this);
    auto* column = new QVBoxLayout(searchPanel);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    m_search = new QLineEdit(searchPanel);
    m_search->setPlaceholderText(tr("Search the terminal text (/)"));
    m_search->setClearButtonEnabled(true);
    connect(m_search, &QLineEdit::returnPressed, this, [this] { search(m_search->text()); });
    m_hits = new QListWidget(searchPanel);
    m_hits->setUniformItemSizes(true);
    m_hits->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_hits->setTextElideMode(Qt::ElideRight);
    m_hits->setToolTip(tr("Click a match to go there"));
    // The match's moment, its line in view and marked.
    auto jumpToHit = [this](QListWidgetItem* item) {
        if (!item) return;
        m_controller->seek(item->data(kHitRole).toLongLong());
        m_terminal->find(m_searched);
    };
    connect(m_hits, &QListWidget::itemClicked, this, jumpToHit);
    connect(m_hits, &QListWidget::itemActivated, this, jumpToHit);
    column->addWidget(m_search);
    column->addWidget(m_hits, 1);
    return searchPanel;
}

bool ReplayView::open(const QString& sessionId, QString* error, const QString& file,
                      const QString& shownName)
{
    if (!m_controller->open(sessionId, error, file)) return false;
    m_hits->clear();
    m_search->clear();
    m_time->clear();
    loadActivity();
    m_scrubber->setDurationNs(m_controller->durationNs());
    m_scrubber->setPositionNs(0);
    // Wide enough for the longest position, so that the controls stay put while playing.
    QString widest = formatReplayTime(m_controller->durationNs());
    widest.replace(QRegularExpression(QStringLiteral("[0-9]")), QStringLiteral("0"));
    m_positionLabel->setMinimumWidth(
        m_positionLabel->fontMetrics().horizontalAdvance(tr("%1 / %2").arg(widest, widest)) + 4);
    setEnabled(true);
    m_fitPending = true;
    QTimer::singleShot(0, this, &ReplayView::fitTerminalPane);
    onPositionChanged(m_controller->positionNs());
    const sb::SessionRecord& s = m_controller->session();
    QStringList command;
    for (const std::string& word : s.command)
        command << QString::fromStdString(word);
    setStatus(tr("%1: %2, %3 × %4, %5")
                  .arg(shownName.isEmpty() ? sessionId : shownName, command.join(u' '))
                  .arg(s.cols)
                  .arg(s.rows)
                  .arg(formatReplayTime(m_controller->durationNs())));
    return true;
}

// The recording's activity in the timeline, each marked event on the scrubber with the
// timeline's own summary as its tooltip.
void ReplayView::loadActivity()
{
    m_activity->clear();
    m_activityRow = -1;
    ActivityModel* model = m_activity->model();
    model->setSessionStart(m_controller->startedUnixMs());
    const auto& events = m_controller->events();
    for (const auto& event : events)
        model->addEvent(event.activity);
    model->flush();
    std::vector<ReplayScrubber::Marker> markers;
    m_executionTimes.clear();
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (auto kind = markerKindOf(events[i].activity))
            markers.push_back({events[i].tNs, *kind, model->summary(static_cast<int>(i))});
        if (events[i].activity.value("kind", "") == sb::activity::kExecution)
            m_executionTimes.push_back(events[i].tNs);
    }
    m_scrubber->setMarkers(std::move(markers));
}

int ReplayView::executionsAt(qint64 ns) const
{
    return static_cast<int>(std::upper_bound(m_executionTimes.begin(), m_executionTimes.end(), ns) -
                            m_executionTimes.begin());
}

bool ReplayView::seekToExecution(int index)
{
    if (!m_controller->isOpen() || index < 0 || index >= static_cast<int>(m_executionTimes.size()))
        return false;
    m_controller->seek(m_executionTimes[static_cast<std::size_t>(index)]);
    return true;
}

void ReplayView::close()
{
    m_controller->close();
    m_activityRow = -1;
    m_executionTimes.clear();
    m_hits->clear();
    m_scrubber->setMarkers({});
    m_scrubber->setDurationNs(0);
    m_positionLabel->clear();
    setStatus({});
    setEnabled(false);
    Q_EMIT closed();
}

void ReplayView::showNotice(const QString& text, bool problem)
{
    close();
    setStatus(text, problem);
}

QString ReplayView::sessionId() const
{
    return m_controller->sessionId();
}

qint64 ReplayView::positionNs() const
{
    return m_controller->positionNs();
}

qint64 ReplayView::durationNs() const
{
    return m_controller->durationNs();
}

void ReplayView::seek(qint64 ns)
{
    m_controller->seek(ns);
}

void ReplayView::play()
{
    m_controller->play();
}

void ReplayView::pause()
{
    m_controller->pause();
}

void ReplayView::setSpeed(double speed)
{
    m_controller->setSpeed(speed);
    int nearest = 0;
    for (int i = 0; i < m_speed->count(); ++i)
        if (std::abs(m_speed->itemData(i).toDouble() - m_controller->speed()) <
            std::abs(m_speed->itemData(nearest).toDouble() - m_controller->speed()))
            nearest = i;
    const QSignalBlocker block(m_speed);
    m_speed->setCurrentIndex(nearest);
}

bool ReplayView::nextEvent()
{
    auto t = m_scrubber->nextMarker(m_controller->positionNs());
    if (!t) {
        setStatus(tr("No event after %1.").arg(formatReplayTime(m_controller->positionNs())));
        return false;
    }
    m_controller->seek(*t);
    return true;
}

bool ReplayView::previousEvent()
{
    auto t = m_scrubber->previousMarker(m_controller->positionNs());
    if (!t) {
        setStatus(tr("No event before %1.").arg(formatReplayTime(m_controller->positionNs())));
        return false;
    }
    m_controller->seek(*t);
    return true;
}

bool ReplayView::jumpTo(const QString& time)
{
    auto ns = parseReplayTime(time);
    if (!ns) {
        setStatus(tr("\"%1\" is not a time; write 90, 1m30s or 1:30.").arg(time), true);
        return false;
    }
    m_controller->seek(*ns);
    if (*ns > m_controller->durationNs())
        setStatus(
            tr("The recording ends at %1.").arg(formatReplayTime(m_controller->durationNs())));
    return true;
}

int ReplayView::search(const QString& text)
{
    m_hits->clear();
    m_searched = text.trimmed();
    if (text.trimmed().isEmpty()) return 0;
    QString error;
    const auto hits = m_controller->search(text, &error);
    if (!error.isEmpty()) {
        setStatus(error, true);
        return 0;
    }
    for (const sb::SearchHit& hit : hits) {
        auto* item = new QListWidgetItem(
            tr("%1  %2").arg(formatReplayTime(hit.tNs),
                             hitText(QString::fromStdString(hit.snippet), m_searched)),
            m_hits);
        item->setData(kHitRole, QVariant::fromValue<qint64>(hit.tNs));
        item->setToolTip(QString::fromStdString(hit.snippet));
    }
    setStatus(
        hits.empty()
            ? tr("No terminal text matches \"%1\".").arg(text)
            : tr("Matches for \"%1\": %n.", nullptr, static_cast<int>(hits.size())).arg(text));
    return static_cast<int>(hits.size());
}

bool ReplayView::exportTo(sb::ExportFormat format, const QString& path, QString* error)
{
    QString why;
    if (!m_controller->exportTo(format, path, &why)) {
        setStatus(tr("Export failed: %1").arg(why), true);
        if (error) *error = why;
        return false;
    }
    setStatus(tr("Exported to %1.").arg(path));
    Q_EMIT exported(path);
    return true;
}

void ReplayView::setExportChooser(ExportChooser chooser)
{
    m_chooser = std::move(chooser);
}

void ReplayView::exportWithDialog()
{
    if (!m_controller->isOpen()) return;
    pause();
    auto choice = m_chooser ? m_chooser(this) : askExportFile(this, sessionId());
    if (!choice) return;
    QString error;
    if (!exportTo(choice->format, choice->path, &error))
        prompt::error(this, tr("Export"), tr("Could not export the recording: %1").arg(error));
}

std::optional<ReplayView::ExportChoice> ReplayView::askExportFile(QWidget* parent,
                                                                  const QString& sessionId)
{
    const QString cast = tr("asciicast v2 (*.cast)");
    const QString jsonl = tr("JSON Lines (*.jsonl)");
    QString filter = cast;
    const QString path = QFileDialog::getSaveFileName(parent, tr("Export recording"),
                                                      sessionId + QStringLiteral(".cast"),
                                                      cast + QStringLiteral(";;") + jsonl, &filter);
    if (path.isEmpty()) return std::nullopt;
    // The typed extension wins over the filter left selected.
    const bool lines =
        path.endsWith(QLatin1String(".jsonl"), Qt::CaseInsensitive) ||
        (!path.endsWith(QLatin1String(".cast"), Qt::CaseInsensitive) && filter == jsonl);
    return ExportChoice{lines ? sb::ExportFormat::JsonLines : sb::ExportFormat::Asciicast, path};
}

void ReplayView::onPositionChanged(qint64 ns)
{
    if (m_terminal->columns() != m_fittedColumns) { // the recorded terminal was resized
        m_fitPending = true;
        fitTerminalPane();
    }
    m_scrubber->setPositionNs(ns);
    m_positionLabel->setText(
        tr("%1 / %2").arg(formatReplayTime(ns), formatReplayTime(m_controller->durationNs())));
    if (m_scrubber->durationNs() != m_controller->durationNs())
        m_scrubber->setDurationNs(m_controller->durationNs()); // a running session grew
    followActivity(ns);
    Q_EMIT executionsReached(executionsAt(ns), ns);
}

// The timeline selects the last event that had happened at the position. An event the user
// clicked stays selected while the position is at its time (several may share one).
void ReplayView::followActivity(qint64 ns)
{
    const int row = m_controller->eventIndexAt(ns);
    const auto& events = m_controller->events();
    if (row == m_activityRow) return;
    if (row >= 0 && m_activityRow >= 0 && m_activityRow < static_cast<int>(events.size()) &&
        events[static_cast<std::size_t>(m_activityRow)].tNs ==
            events[static_cast<std::size_t>(row)].tNs)
        return;
    m_activityRow = row;
    m_activity->selectEvent(row);
}

void ReplayView::onActivityClicked(const QModelIndex& proxyIndex)
{
    if (!proxyIndex.isValid() || !m_controller->isOpen()) return;
    const int row = m_activity->filterModel()->mapToSource(proxyIndex).row();
    const auto& events = m_controller->events();
    if (row < 0 || row >= static_cast<int>(events.size())) return;
    m_activityRow = row;
    m_controller->seek(events[static_cast<std::size_t>(row)].tNs);
}

void ReplayView::onPlayingChanged(bool playing)
{
    m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_play->setText(playing ? tr("Pause") : tr("Play"));
    m_play->setToolTip(playing ? tr("Pause (Space)") : tr("Play (Space)"));
}

void ReplayView::setStatus(const QString& text, bool problem)
{
    QPalette pal = palette();
    if (problem)
        pal.setColor(QPalette::WindowText,
                     ReplayScrubber::markerColor(ReplayScrubber::MarkerKind::Denial, pal));
    m_status->setPalette(pal);
    m_status->setText(text);
    m_status->setToolTip(text);
}

QString ReplayView::statusText() const
{
    return m_status->text();
}

// Sizes the terminal pane to the recording's width, as far as the search keeps a usable size
// (a screen taller than the pane scrolls, following the cursor). Tried again as the view grows
// until the whole width fits, or the user moves the divider.
void ReplayView::fitTerminalPane()
{
    if (!m_fitPending || !isVisible() || m_split->width() <= 0) return;
    const QList<int> sizes = m_split->sizes();
    if (sizes.size() != 2) return;
    const int want = m_terminal->cellRect(0, m_terminal->columns() - 1).right() + 1 +
                     m_terminal->verticalScrollBar()->sizeHint().width() +
                     2 * m_terminal->frameWidth();
    const int total = sizes[0] + sizes[1];
    const int first = std::max(std::min(want, total - kMinSearchPanel), total / 2);
    m_split->setSizes({first, total - first});
    m_fitPending = first < want;
    m_fittedColumns = m_terminal->columns();
}

void ReplayView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    QTimer::singleShot(0, this, &ReplayView::fitTerminalPane); // once the splitter has its size
}

void ReplayView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    QTimer::singleShot(0, this, &ReplayView::fitTerminalPane);
}

void ReplayView::hideEvent(QHideEvent* event)
{
    // Nobody watches a hidden replay.
    pause();
    QWidget::hideEvent(event);
}

} // namespace sbui
