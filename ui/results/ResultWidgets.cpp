#include "ResultWidgets.h"

#include <QApplication>
#include <QFontDatabase>
#include <QHeaderView>
#include <QImage>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

namespace sbui {

using json = nlohmann::json;

namespace {

// Pictures wider than this are shown smaller (never larger than they are).
constexpr int kMaxPictureWidth = 720;
// A DataFrame's rows shown at most; the rest are counted.
constexpr int kMaxTableRows = 1000;
constexpr int kMaxTextLines = 16;

QString textOf(const json& j, const char* key)
{
    return j.contains(key) && j[key].is_string() ? QString::fromStdString(j[key].get<std::string>())
                                                 : QString();
}

QString sizeText(const json& part)
{
    return QLocale().formattedDataSize(part.value("bytes", qint64{0}));
}

QFont monospace()
{
    return QFontDatabase::systemFont(QFontDatabase::FixedFont);
}

// Read-only text in a box as high as its lines (up to kMaxTextLines, then it scrolls).
QPlainTextEdit* textBox(const QString& text, const QString& name, const QColor& colour = {})
{
    auto* box = new QPlainTextEdit;
    box->setObjectName(name);
    box->setReadOnly(true);
    box->setFont(monospace());
    box->setLineWrapMode(QPlainTextEdit::NoWrap);
    box->setPlainText(text.endsWith(u'\n') ? text.chopped(1) : text);
    if (colour.isValid()) {
        QPalette palette = box->palette();
        palette.setColor(QPalette::Text, colour);
        box->setPalette(palette);
    }
    const int lines = std::clamp(static_cast<int>(text.count(u'\n')) + 1, 1, kMaxTextLines);
    const QFontMetrics metrics(box->font());
    box->setFixedHeight(lines * metrics.lineSpacing() + 2 * box->frameWidth() +
                        static_cast<int>(2 * box->document()->documentMargin()) + 4);
    return box;
}

QLabel* note(const QString& text, const QString& name = QStringLiteral("ResultNote"))
{
    auto* label = new QLabel(text);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

// Rich text from the sandbox: shown, never a door to anything else. No resource is loaded (an
// <img> naming a file of this machine stays empty) and links are not followed.
class InertBrowser : public QTextBrowser {
  public:
    InertBrowser()
    {
        setOpenLinks(false);
        setOpenExternalLinks(false);
    }
    QVariant loadResource(int, const QUrl&) override { return {}; }
};

QTextBrowser* richText(const QString& text, bool markdown)
{
    auto* browser = new InertBrowser;
    browser->setObjectName(markdown ? QStringLiteral("ResultMarkdown")
                                    : QStringLiteral("ResultHtml"));
    if (markdown)
        browser->setMarkdown(text);
    else
        browser->setHtml(text);
    browser->document()->setTextWidth(kMaxPictureWidth);
    const int height =
        static_cast<int>(browser->document()->size().height()) + 2 * browser->frameWidth() + 4;
    browser->setFixedHeight(std::min(height, 420));
    return browser;
}

QString cellText(const json& value)
{
    if (value.is_string()) return QString::fromStdString(value.get<std::string>());
    if (value.is_null()) return QString();
    return QString::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

// A DataFrame's data as E2B sends it: {column: [values…]}. Nothing for any other shape.
QWidget* dataTable(const json& data)
{
    if (!data.is_object() || data.empty()) return nullptr;
    std::size_t rows = 0;
    for (const auto& [name, column] : data.items()) {
        if (!column.is_array()) return nullptr;
        rows = std::max(rows, column.size());
    }
    const int shown = static_cast<int>(std::min<std::size_t>(rows, kMaxTableRows));
    auto* table = new QTableWidget(shown, static_cast<int>(data.size()));
    table->setObjectName(QStringLiteral("ResultTable"));
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide(); // E2B's data carries no index
    QStringList headers;
    int c = 0;
    for (const auto& [name, column] : data.items()) {
        headers << QString::fromStdString(name);
        for (int r = 0; r < shown && static_cast<std::size_t>(r) < column.size(); ++r) {
            auto* item = new QTableWidgetItem(cellText(column[static_cast<std::size_t>(r)]));
            if (column[static_cast<std::size_t>(r)].is_number())
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table->setItem(r, c, item);
        }
        ++c;
    }
    table->setHorizontalHeaderLabels(headers);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    const int visible = std::min(shown, 15);
    table->setFixedHeight(table->horizontalHeader()->sizeHint().height() +
                          visible * table->verticalHeader()->defaultSectionSize() +
                          2 * table->frameWidth() + 2);
    if (static_cast<std::size_t>(shown) == rows) return table;
    auto* box = new QWidget;
    auto* column = new QVBoxLayout(box);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(table);
    column->addWidget(note(
        ExecutionBlock::tr("The first %1 of %2 rows.")
            .arg(QLocale().toString(shown), QLocale().toString(static_cast<qulonglong>(rows)))));
    return box;
}

const json* partOf(const json& result, const char* mime, bool recordedOnly = true)
{
    if (!result.contains("parts") || !result["parts"].is_array()) return nullptr;
    for (const json& part : result["parts"])
        if (part.is_object() && part.value("mime", "") == mime &&
            (!recordedOnly || !part.contains("omitted")))
            return &part;
    return nullptr;
}

QWidget* picture(const QImage& image)
{
    auto* label = new QLabel;
    label->setObjectName(QStringLiteral("ResultImage"));
    const qreal ratio = qApp ? qApp->devicePixelRatio() : 1.0;
    QImage shown = image.width() > kMaxPictureWidth * ratio
                       ? image.scaledToWidth(static_cast<int>(kMaxPictureWidth * ratio),
                                             Qt::SmoothTransformation)
                       : image;
    QPixmap pixmap = QPixmap::fromImage(shown);
    pixmap.setDevicePixelRatio(ratio);
    label->setPixmap(pixmap);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    return label;
}

// The part shown, with its type named for tests and tooltips.
QWidget* tagged(QWidget* widget, const char* mime)
{
    widget->setProperty("mime", QString::fromLatin1(mime));
    widget->setToolTip(QString::fromLatin1(mime));
    return widget;
}

} // namespace

QImage resultImage(const json& part)
{
    const std::string mime = part.value("mime", "");
    if (mime == "image/svg+xml") {
        const QByteArray svg = textOf(part, "text").toUtf8();
        // An SVG may name other files (<image href="file:…">, <use href="…">): only one that is
        // whole in itself is drawn.
        static const QRegularExpression outside(QStringLiteral(R"(href\s*=\s*["'](?!#|data:))"),
                                                QRegularExpression::CaseInsensitiveOption);
        if (svg.isEmpty() || outside.match(QString::fromUtf8(svg)).hasMatch()) return {};
        QSvgRenderer renderer(svg);
        if (!renderer.isValid()) return {};
        QSize size = renderer.defaultSize();
        if (size.isEmpty()) size = QSize(640, 480);
        if (size.width() > 4 * kMaxPictureWidth)
            size.scale(4 * kMaxPictureWidth, 4 * kMaxPictureWidth, Qt::KeepAspectRatio);
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        renderer.render(&painter);
        return image;
    }
    if (mime != "image/png" && mime != "image/jpeg") return {};
    const QByteArray bytes = QByteArray::fromBase64(textOf(part, "base64").toLatin1());
    return QImage::fromData(bytes, mime == "image/png" ? "PNG" : "JPEG");
}

QWidget* resultWidget(const json& result)
{
    auto* box = new QWidget;
    box->setObjectName(QStringLiteral("Result"));
    auto* column = new QVBoxLayout(box);
    column->setContentsMargins(0, 0, 0, 0);
    // What was too large to record is said, whatever is shown instead.
    if (result.contains("parts") && result["parts"].is_array())
        for (const json& part : result["parts"])
            if (part.is_object() && part.contains("omitted"))
                column->addWidget(
                    note(ExecutionBlock::tr("%1 (%2) was not recorded: %3")
                             .arg(textOf(part, "mime"), sizeText(part), textOf(part, "omitted"))));
    QWidget* shown = nullptr;
    for (const char* mime : {"image/png", "image/jpeg", "image/svg+xml"})
        if (!shown)
            if (const json* part = partOf(result, mime)) {
                const QImage image = resultImage(*part);
                if (!image.isNull())
                    shown = tagged(picture(image), mime);
                else
                    column->addWidget(
                        note(ExecutionBlock::tr("A %1 picture this window cannot show.")
                                 .arg(QString::fromLatin1(mime))));
            }
    if (!shown)
        if (const json* part = partOf(result, "e2b/data"))
            if (QWidget* table = dataTable((*part)["json"])) shown = tagged(table, "e2b/data");
    if (!shown)
        if (const json* part = partOf(result, "text/html"))
            shown = tagged(richText(textOf(*part, "text"), false), "text/html");
    if (!shown)
        if (const json* part = partOf(result, "text/markdown"))
            shown = tagged(richText(textOf(*part, "text"), true), "text/markdown");
    if (!shown)
        for (const char* mime : {"application/json", "e2b/chart"})
            if (!shown)
                if (const json* part = partOf(result, mime))
                    shown =
                        tagged(textBox(QString::fromStdString(
                                           part->contains("json")
                                               ? (*part)["json"].dump(
                                                     2, ' ', false, json::error_handler_t::replace)
                                               : std::string()),
                                       QStringLiteral("ResultJson")),
                               mime);
    if (!shown)
        for (const char* mime : {"text/plain", "text/latex", "application/javascript"})
            if (!shown)
                if (const json* part = partOf(result, mime))
                    shown =
                        tagged(textBox(textOf(*part, "text"), QStringLiteral("ResultText")), mime);
    if (shown) column->addWidget(shown);
    return box;
}

ExecutionBlock::ExecutionBlock(const json& x, QWidget* parent)
    : QFrame(parent), m_title(new QLabel), m_body(new QWidget),
      m_notYet(
          note(tr("Not yet run at this point of the replay."), QStringLiteral("ExecutionNotYet")))
{
    setObjectName(QStringLiteral("Execution"));
    setFrameShape(QFrame::StyledPanel);
    auto* outer = new QVBoxLayout(this);
    outer->addWidget(m_title);
    outer->addWidget(m_body);
    outer->addWidget(m_notYet);
    m_notYet->hide();
    auto* column = new QVBoxLayout(m_body);
    column->setContentsMargins(0, 0, 0, 0);

    QStringList head;
    head << (x.contains("execution_count") && x["execution_count"].is_number_integer()
                 ? tr("Execution [%1]").arg(x["execution_count"].get<qint64>())
                 : tr("Execution"));
    const QString language = textOf(x, "language");
    head << (language.isEmpty() || language == QLatin1String("python") ? QStringLiteral("Python")
             : language == QLatin1String("r")                          ? QStringLiteral("R")
                                                                       : language);
    const QString context = textOf(x, "context");
    head << (context.isEmpty() ? tr("default context") : tr("context %1").arg(context));
    if (x.contains("duration_ms") && x["duration_ms"].is_number())
        head << tr("%1 s").arg(QLocale().toString(x["duration_ms"].get<double>() / 1000.0, 'f', 1));
    m_title->setText(head.join(QStringLiteral(" · ")));
    m_title->setObjectName(QStringLiteral("ExecutionTitle"));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);

    column->addWidget(textBox(textOf(x, "code"), QStringLiteral("ExecutionCode")));
    QStringList cut;
    if (x.contains("code_bytes")) cut << tr("the code");
    if (x.contains("stdout_bytes")) cut << tr("the output");
    if (x.contains("stderr_bytes")) cut << tr("the error output");
    if (!cut.isEmpty())
        column->addWidget(note(
            tr("Only the beginning was recorded of %1.").arg(QLocale().createSeparatedList(cut))));
    if (const QString out = textOf(x, "stdout"); !out.isEmpty())
        column->addWidget(textBox(out, QStringLiteral("ExecutionStdout")));
    if (const QString err = textOf(x, "stderr"); !err.isEmpty())
        column->addWidget(
            textBox(err, QStringLiteral("ExecutionStderr"), QColor(0xa0, 0x52, 0x00)));
    if (x.contains("results") && x["results"].is_array())
        for (const json& result : x["results"])
            if (result.is_object()) column->addWidget(resultWidget(result));
    if (x.contains("results_omitted") && x["results_omitted"].is_number_integer())
        column->addWidget(note(
            tr("%n more result(s) were not recorded.", nullptr, x["results_omitted"].get<int>())));
    if (x.contains("error") && x["error"].is_object()) {
        const json& error = x["error"];
        const QColor red(0xb3, 0x26, 0x1e);
        auto* name = new QLabel(tr("%1: %2").arg(textOf(error, "name"), textOf(error, "value")));
        name->setObjectName(QStringLiteral("ExecutionError"));
        name->setWordWrap(true);
        name->setTextFormat(Qt::PlainText);
        QPalette palette = name->palette();
        palette.setColor(QPalette::WindowText, red);
        name->setPalette(palette);
        name->setFont(bold);
        column->addWidget(name);
        if (const QString trace = textOf(error, "traceback"); !trace.isEmpty())
            column->addWidget(textBox(trace, QStringLiteral("ExecutionTraceback"), red));
    }
}

void ExecutionBlock::setPending(bool pending)
{
    if (pending == m_pending) return;
    m_pending = pending;
    m_body->setVisible(!pending);
    m_notYet->setVisible(pending);
    m_title->setForegroundRole(pending ? QPalette::PlaceholderText : QPalette::WindowText);
}

void ExecutionBlock::setClickable(bool clickable)
{
    if (clickable == m_clickable) return;
    m_clickable = clickable;
    setFocusPolicy(clickable ? Qt::StrongFocus : Qt::NoFocus);
    if (clickable) {
        setCursor(Qt::PointingHandCursor);
        setToolTip(tr("Click (or press Enter) to go to this execution in the replay."));
    } else {
        unsetCursor();
        setToolTip({});
    }
}

void ExecutionBlock::keyPressEvent(QKeyEvent* event)
{
    const int key = event->key();
    if (m_clickable && (key == Qt::Key_Return || key == Qt::Key_Enter || key == Qt::Key_Space)) {
        event->accept();
        Q_EMIT clicked();
        return;
    }
    QFrame::keyPressEvent(event);
}

// Where the keyboard is: the frame drawn in the highlight colour.
void ExecutionBlock::paintEvent(QPaintEvent* event)
{
    QFrame::paintEvent(event);
    if (!hasFocus()) return;
    QPainter painter(this);
    painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRectF(rect()).adjusted(1, 1, -1, -1));
}

void ExecutionBlock::mousePressEvent(QMouseEvent* event)
{
    // Taken, so that the release comes here too.
    if (m_clickable && event->button() == Qt::LeftButton)
        event->accept();
    else
        QFrame::mousePressEvent(event);
}

void ExecutionBlock::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_clickable && event->button() == Qt::LeftButton &&
        rect().contains(event->position().toPoint())) {
        event->accept();
        Q_EMIT clicked();
        return;
    }
    QFrame::mouseReleaseEvent(event);
}

} // namespace sbui
