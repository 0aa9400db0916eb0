#include "DiffView.h"

#include "DiffDelegate.h"
#include "terminal/MonospaceFont.h"

#include <QAction>
#include <QBuffer>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImageReader>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMimeDatabase>
#include <QScrollArea>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cstring>
#include <utility>

namespace sbui {
namespace {

// Below this many characters a diff is computed at once; above, on the worker thread.
constexpr qsizetype kInlineCharacters = 256 * 1024;
constexpr int kContextLines = 3;
constexpr int kCellPadding = DiffDelegate::kCellPadding;
constexpr int kImageBox = 320;

// git's test: a NUL byte among the first 8000 makes a file binary.
bool looksBinary(const std::string& content)
{
    return std::memchr(content.data(), 0, std::min<std::size_t>(content.size(), 8000)) != nullptr;
}

bool sameSide(const sb::ChangeSide& a, const sb::ChangeSide& b)
{
    return a.exists == b.exists && a.type == b.type && a.size == b.size &&
           a.truncated == b.truncated && a.content == b.content;
}

QImage decodeImage(const std::string& content)
{
    QByteArray bytes = QByteArray::fromStdString(content);
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::ReadOnly);
    QImageReader reader(&buffer);
    return reader.read();
}

} // namespace

DiffView::DiffView(QWidget* parent) : QWidget(parent)
{
    m_title = new QLabel(this);
    m_title->setTextFormat(Qt::RichText);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // In a narrow pane the title gives way (the tree shows which file it is), so the counts and
    // the toggles beside it keep their room instead of being drawn over each other.
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_stats = new QLabel(this);
    m_stats->setTextFormat(Qt::RichText);

    m_sideBySide = new QAction(tr("Side by side"), this);
    m_sideBySide->setCheckable(true);
    m_sideBySide->setToolTip(tr("Show the old and the new version next to each other"));
    connect(m_sideBySide, &QAction::toggled, this, [this] { rebuildRows(); });
    m_ignoreWhitespace = new QAction(tr("Ignore white space"), this);
    m_ignoreWhitespace->setCheckable(true);
    m_ignoreWhitespace->setToolTip(tr("Treat lines that differ only in white space as equal"));
    connect(m_ignoreWhitespace, &QAction::toggled, this, [this] { recompute(); });
    m_wholeFile = new QAction(tr("Whole file"), this);
    m_wholeFile->setCheckable(true);
    m_wholeFile->setToolTip(tr("Show every line, not only those around the changes"));
    connect(m_wholeFile, &QAction::toggled, this, [this] { rebuildRows(); });

    auto* header = new QHBoxLayout;
    header->setContentsMargins(6, 2, 2, 2);
    header->addWidget(m_title, 1);
    header->addWidget(m_stats);
    header->addSpacing(8);
    // The toggles side by side where they fit; in a narrow pane, one "View" menu of them, never
    // cut or drawn over the counts (resizeEvent chooses).
    m_toggles = new QToolBar(this);
    m_toggles->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_toggles->addActions({m_sideBySide, m_ignoreWhitespace, m_wholeFile});
    m_toggles->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    m_viewButton = new QToolButton(this);
    m_viewButton->setText(tr("View"));
    m_viewButton->setToolTip(tr("How the change is shown"));
    m_viewButton->setPopupMode(QToolButton::InstantPopup);
    m_viewButton->setAutoRaise(true);
    auto* menu = new QMenu(m_viewButton);
    menu->addActions({m_sideBySide, m_ignoreWhitespace, m_wholeFile});
    m_viewButton->setMenu(menu);
    m_viewButton->hide();
    header->addWidget(m_toggles);
    header->addWidget(m_viewButton);

    m_model = new DiffModel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setItemDelegate(new DiffDelegate(m_table));
    m_table->setFont(monospaceFont());
    m_table->horizontalHeader()->hide();
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->horizontalHeader()->setMinimumSectionSize(1); // the sign column is one character
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 2);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->setCornerButtonEnabled(false);
    // The text columns fill the width the viewport has once laid out.
    m_table->viewport()->installEventFilter(this);

    m_summary = new QLabel(this);
    m_summary->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_summary->setWordWrap(true);
    m_summary->setMargin(12);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_imagePage = new QWidget(this);
    auto* grid = new QGridLayout(m_imagePage);
    m_beforeCaption = new QLabel(m_imagePage);
    m_afterCaption = new QLabel(m_imagePage);
    m_beforeLabel = new QLabel(m_imagePage);
    m_afterLabel = new QLabel(m_imagePage);
    for (QLabel* label : {m_beforeLabel, m_afterLabel}) {
        label->setAlignment(Qt::AlignCenter);
        label->setMinimumSize(64, 64);
        label->setFrameShape(QFrame::StyledPanel);
    }
    grid->addWidget(m_beforeCaption, 0, 0);
    grid->addWidget(m_afterCaption, 0, 1);
    grid->addWidget(m_beforeLabel, 1, 0, Qt::AlignTop);
    grid->addWidget(m_afterLabel, 1, 1, Qt::AlignTop);
    grid->setRowStretch(2, 1);
    m_imageScroll = new QScrollArea(this);
    m_imageScroll->setWidget(m_imagePage);
    m_imageScroll->setWidgetResizable(true);

    m_message = new QLabel(this);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setMargin(12);

    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_message);
    // Side by side, both sides stay in view and this bar pans the text of both together.
    m_pan = new QScrollBar(Qt::Horizontal, this);
    m_pan->hide();
    connect(m_pan, &QScrollBar::valueChanged, this, [this](int shift) {
        static_cast<DiffDelegate*>(m_table->itemDelegate())->shift = shift;
        m_table->viewport()->update();
    });
    m_textPage = new QWidget(this);
    auto* textColumn = new QVBoxLayout(m_textPage);
    textColumn->setContentsMargins(0, 0, 0, 0);
    textColumn->setSpacing(0);
    textColumn->addWidget(m_table, 1);
    textColumn->addWidget(m_pan);
    m_stack->addWidget(m_textPage);
    m_stack->addWidget(m_summary);
    m_stack->addWidget(m_imageScroll);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(header);
    layout->addWidget(m_stack, 1);

    m_model->setColors(ReviewStyle::diffColors(palette()));
    static_cast<DiffDelegate*>(m_table->itemDelegate())->colors =
        ReviewStyle::diffColors(palette());
    clear();
}

DiffView::~DiffView() = default;

void DiffView::showChange(const QString& path, const sb::ChangeContent& content, bool changed)
{
    QString what = !changed                 ? tr("unchanged")
                   : !content.before.exists ? tr("added")
                   : !content.after.exists  ? tr("deleted")
                                            : tr("modified");
    if (content.after.type == sb::EntryType::Symlink ||
        (!content.after.exists && content.before.type == sb::EntryType::Symlink))
        what = tr("symbolic link, %1").arg(what);
    m_title->setText(QStringLiteral("<b>%1</b> &nbsp;<span style=\"color:%2\">%3</span>")
                         .arg(path.toHtmlEscaped(),
                              palette().color(QPalette::PlaceholderText).name(),
                              what.toHtmlEscaped()));
    m_titleText = path + QLatin1Char(' ') + what;
    const bool samePath = path == m_path;
    // The panel shows the selected file again after every write of the agent: when that file
    // did not change, there is nothing more to do.
    if (samePath && m_content && changed == m_changed &&
        sameSide(m_content->before, content.before) && sameSide(m_content->after, content.after))
        return;
    m_changed = changed;
    m_refreshing = samePath && m_page == Page::Text;
    m_path = path;
    m_content = std::make_shared<const sb::ChangeContent>(content);
    if (!samePath) m_table->verticalScrollBar()->setValue(0);
    recompute();
}

void DiffView::showMessage(const QString& title, const QString& text)
{
    ++m_generation;
    m_computing = false;
    m_content.reset();
    m_result.reset();
    m_path = title;
    m_title->setText(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()));
    m_titleText = title;
    m_stats->clear();
    m_message->setText(text);
    setPage(Page::Message);
    emit shown();
}

void DiffView::clear()
{
    ++m_generation;
    m_computing = false;
    m_content.reset();
    m_result.reset();
    m_path.clear();
    m_title->clear();
    m_titleText.clear();
    m_stats->clear();
    m_model->clear();
    m_message->setText(tr("Select a changed file to see what the agent did to it."));
    setPage(Page::Empty);
}

void DiffView::setLayoutMode(Layout layout)
{
    m_sideBySide->setChecked(layout == Layout::SideBySide);
}

DiffView::Layout DiffView::layoutMode() const
{
    return m_sideBySide->isChecked() ? Layout::SideBySide : Layout::Unified;
}

void DiffView::setIgnoreWhitespace(bool ignore)
{
    m_ignoreWhitespace->setChecked(ignore);
}

bool DiffView::ignoreWhitespace() const
{
    return m_ignoreWhitespace->isChecked();
}

void DiffView::setWholeFile(bool whole)
{
    m_wholeFile->setChecked(whole);
}

void DiffView::recompute()
{
    if (!m_content) return;
    const int generation = ++m_generation;
    m_computing = false;
    const sb::ChangeContent& c = *m_content;
    const bool refreshing = std::exchange(m_refreshing, false);
    m_beforeImage = {};
    m_afterImage = {};
    if (c.before.truncated || c.after.truncated || looksBinary(c.before.content) ||
        looksBinary(c.after.content)) {
        m_beforeImage = decodeImage(c.before.content);
        m_afterImage = decodeImage(c.after.content);
        if (!m_beforeImage.isNull() || !m_afterImage.isNull())
            showImages();
        else
            showBinary();
        return;
    }
    if (c.before.type == sb::EntryType::Other || c.after.type == sb::EntryType::Other) {
        m_stats->clear();
        m_message->setText(tr("A special file (a FIFO, socket or device): it has no content to "
                              "compare, and applying never copies it."));
        setPage(Page::Message);
        emit shown();
        return;
    }
    QString before = QString::fromUtf8(c.before.content);
    QString after = QString::fromUtf8(c.after.content);
    diff::Options options;
    options.ignoreWhitespace = ignoreWhitespace();
    if (before.size() + after.size() <= kInlineCharacters) {
        showResult(std::make_shared<const diff::Result>(diff::compare(before, after, options)));
        return;
    }
    m_computing = true;
    // A new version of the file on screen: the old diff stays until the new one is ready.
    if (!refreshing) {
        m_stats->clear();
        m_message->setText(tr("Comparing…"));
        setPage(Page::Message);
    }
    m_queue.clearPending();
    m_queue.run(
        this,
        [before = std::move(before), after = std::move(after), options] {
            return std::make_shared<const diff::Result>(diff::compare(before, after, options));
        },
        [this, generation](std::shared_ptr<const diff::Result> result) {
            if (generation != m_generation) return;
            m_computing = false;
            showResult(std::move(result));
        });
}

void DiffView::showResult(std::shared_ptr<const diff::Result> result)
{
    m_result = std::move(result);
    if (!m_result->hasChanges()) {
        m_model->clear();
        m_stats->clear();
        const sb::ChangeContent& c = *m_content;
        if (!m_changed)
            m_message->setText(
                tr("No change left here: the project holds the same version as the session."));
        else if (c.before.content.empty() && c.after.content.empty())
            m_message->setText(tr("An empty file."));
        else if (c.before.content != c.after.content)
            m_message->setText(tr("Only white space changed."));
        else
            m_message->setText(tr("The content is the same on both sides."));
        setPage(Page::Message);
        emit shown();
        return;
    }
    const int scroll = m_table->verticalScrollBar()->value();
    rebuildRows();
    setPage(Page::Text);
    // The same file again (the agent wrote to it): keep the place the user was reading.
    m_table->verticalScrollBar()->setValue(scroll);
    emit shown();
}

void DiffView::rebuildRows()
{
    if (!m_result || !m_result->hasChanges()) return;
    m_model->setResult(m_result, layoutMode(), m_wholeFile->isChecked() ? -1 : kContextLines);
    QString stats = QStringLiteral("<span style=\"color:%1\">+%2</span> "
                                   "<span style=\"color:%3\">\u2212%4</span>")
                        .arg(ReviewStyle::markerColor(ChangeMarker::Added, palette()).name())
                        .arg(m_result->added)
                        .arg(ReviewStyle::markerColor(ChangeMarker::Deleted, palette()).name())
                        .arg(m_result->removed);
    if (m_result->coarse) stats += QLatin1Char(' ') + tr("(too different to match line by line)");
    m_stats->setText(stats);
    updateColumnWidths();
}

void DiffView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int counts = m_stats->isVisible() ? m_stats->sizeHint().width() : 0;
    const bool roomy = width() >= counts + m_toggles->sizeHint().width() +
                                      m_title->fontMetrics().averageCharWidth() * 12 + 24;
    m_toggles->setVisible(roomy);
    m_viewButton->setVisible(!roomy);
}

void DiffView::updateColumnWidths()
{
    if (m_model->rowCount() == 0) return;
    const QFontMetrics metrics(m_table->font());
    const int digit = metrics.horizontalAdvance(QLatin1Char('0'));
    const int numberWidth =
        static_cast<int>(QString::number(std::max(m_model->maxLineNumber(), 99)).size()) * digit +
        3 * kCellPadding;
    const int textWidth = m_model->maxTextLength() * digit + 4 * kCellPadding;
    const int available = m_table->viewport()->width();
    if (m_model->layout() == Layout::Unified) {
        const int signWidth = digit + 2 * kCellPadding;
        m_table->setColumnWidth(DiffModel::OldNumberColumn, numberWidth);
        m_table->setColumnWidth(DiffModel::NewNumberColumn, numberWidth);
        m_table->setColumnWidth(DiffModel::SignColumn, signWidth);
        m_table->setColumnWidth(DiffModel::TextColumn,
                                std::max(textWidth, available - 2 * numberWidth - signWidth));
    } else {
        // Both sides always in view, half the width each: a longer line is cut (its tooltip has
        // it), never the new side pushed out of sight.
        const int half = std::max((available - 2 * numberWidth) / 2, 8 * digit);
        m_table->setColumnWidth(DiffModel::LeftNumberColumn, numberWidth);
        m_table->setColumnWidth(DiffModel::LeftTextColumn, half);
        m_table->setColumnWidth(DiffModel::RightNumberColumn, numberWidth);
        m_table->setColumnWidth(DiffModel::RightTextColumn, half);
    }
    // A line longer than its side is reached by panning both sides (their tooltips have it too).
    auto* delegate = static_cast<DiffDelegate*>(m_table->itemDelegate());
    const bool sideBySide = m_model->layout() == Layout::SideBySide;
    delegate->panColumns =
        sideBySide ? std::pair(int{DiffModel::LeftTextColumn}, int{DiffModel::RightTextColumn})
                   : std::pair(-1, -1);
    const int overflow =
        sideBySide ? textWidth - m_table->columnWidth(DiffModel::LeftTextColumn) : 0;
    m_pan->setRange(0, std::max(0, overflow));
    m_pan->setPageStep(m_table->columnWidth(DiffModel::LeftTextColumn));
    m_pan->setSingleStep(digit * 4);
    m_pan->setVisible(overflow > 0);
}

QString DiffView::sideText(const sb::ChangeSide& side, const QString& absent) const
{
    if (!side.exists) return absent;
    const QString size = QLocale().formattedDataSize(static_cast<qint64>(side.size));
    const QMimeType type =
        QMimeDatabase().mimeTypeForFileNameAndData(m_path, QByteArray::fromStdString(side.content));
    return tr("%1, %2 (%3)").arg(size, type.comment(), type.name());
}

void DiffView::showBinary()
{
    const sb::ChangeContent& c = *m_content;
    const bool tooLarge = c.before.truncated || c.after.truncated;
    QStringList lines;
    lines << (tooLarge ? tr("Too large to compare here.") : tr("Binary file."));
    lines << tr("Before: %1").arg(sideText(c.before, tr("none, the file is new")));
    lines << tr("After: %1").arg(sideText(c.after, tr("none, the file was deleted")));
    m_stats->clear();
    m_summary->setText(lines.join(QLatin1Char('\n')));
    setPage(Page::Binary);
    emit shown();
}

void DiffView::showImages()
{
    const sb::ChangeContent& c = *m_content;
    auto show = [&](QLabel* caption, QLabel* label, const QImage& image, const sb::ChangeSide& side,
                    const QString& name, const QString& absent) {
        if (image.isNull()) {
            caption->setText(name + QStringLiteral(": ") +
                             (side.exists ? tr("not an image") : absent));
            label->clear();
            return;
        }
        caption->setText(tr("%1: %2 × %3 px, %4")
                             .arg(name)
                             .arg(image.width())
                             .arg(image.height())
                             .arg(QLocale().formattedDataSize(static_cast<qint64>(side.size))));
        // Fit into the box; small icons are enlarged (without smoothing) so they can be seen.
        QSize target = image.size().scaled(kImageBox, kImageBox, Qt::KeepAspectRatio);
        if (target.width() > image.width() * 8) target = image.size() * 8;
        const auto mode =
            target.width() > image.width() ? Qt::FastTransformation : Qt::SmoothTransformation;
        label->setPixmap(QPixmap::fromImage(image.scaled(target, Qt::KeepAspectRatio, mode)));
    };
    show(m_beforeCaption, m_beforeLabel, m_beforeImage, c.before, tr("Before"),
         tr("none, the file is new"));
    show(m_afterCaption, m_afterLabel, m_afterImage, c.after, tr("After"),
         tr("none, the file was deleted"));
    m_stats->clear();
    setPage(Page::Image);
    emit shown();
}

void DiffView::setPage(Page page)
{
    m_page = page;
    switch (page) {
    case Page::Empty:
    case Page::Message:
        m_stack->setCurrentWidget(m_message);
        break;
    case Page::Text:
        m_stack->setCurrentWidget(m_textPage);
        break;
    case Page::Binary:
        m_stack->setCurrentWidget(m_summary);
        break;
    case Page::Image:
        m_stack->setCurrentWidget(m_imageScroll);
        break;
    }
    const bool text = page == Page::Text;
    m_sideBySide->setEnabled(text);
    m_wholeFile->setEnabled(text);
    // White space may matter to a text that showed no difference without it.
    m_ignoreWhitespace->setEnabled(text || (page == Page::Message && m_result));
}

QString DiffView::unifiedText() const
{
    if (m_page != Page::Text || !m_result || !m_content) return {};
    const QString oldLabel =
        m_content->before.exists ? QStringLiteral("a/") + m_path : QStringLiteral("/dev/null");
    const QString newLabel =
        m_content->after.exists ? QStringLiteral("b/") + m_path : QStringLiteral("/dev/null");
    return diff::unifiedText(*m_result, kContextLines, oldLabel, newLabel);
}

QString DiffView::summaryText() const
{
    switch (m_page) {
    case Page::Binary:
        return m_summary->text();
    case Page::Image:
        return m_beforeCaption->text() + QLatin1Char('\n') + m_afterCaption->text();
    case Page::Empty:
    case Page::Message:
        return m_message->text();
    case Page::Text:
        return {};
    }
    return {};
}

void DiffView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        const DiffColors colors = ReviewStyle::diffColors(palette());
        m_model->setColors(colors);
        static_cast<DiffDelegate*>(m_table->itemDelegate())->colors = colors;
        if (m_page == Page::Text) rebuildRows();
    }
}

bool DiffView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize) updateColumnWidths();
    // Sideways wheel turns (or Shift with the wheel) pan the sides.
    if (watched == m_table->viewport() && event->type() == QEvent::Wheel && m_pan->isVisible()) {
        auto* wheel = static_cast<QWheelEvent*>(event);
        const QPoint delta = wheel->angleDelta();
        const int sideways = delta.x() != 0                                   ? delta.x()
                             : wheel->modifiers().testFlag(Qt::ShiftModifier) ? delta.y()
                                                                              : 0;
        if (sideways != 0) {
            m_pan->setValue(m_pan->value() - sideways / 120 * m_pan->singleStep() * 3);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace sbui
