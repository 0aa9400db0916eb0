#include "ports/PortsView.h"

#include "sessions/SessionConnection.h"

#include <QApplication>
#include <QClipboard>
#include <QDesktopServices>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <map>

namespace sbui {
namespace {

constexpr int kPollMs = 2000;
// What an action did stays this long before the list's own message comes back.
constexpr int kNoticeMs = 6000;
constexpr int kPortRole = Qt::UserRole;
constexpr int kUrlRole = Qt::UserRole + 1;
enum Column { Port, Inside, Preview, Connections };

QString text(const nlohmann::json& j, const char* key)
{
    return QString::fromStdString(j.value(key, std::string()));
}

} // namespace

PortsView::PortsView(QWidget* parent)
    : QWidget(parent), m_message(new QLabel), m_table(new QTreeWidget),
      m_expose(new QPushButton(tr("&Expose"))), m_open(new QPushButton(tr("&Open in browser"))),
      m_copy(new QPushButton(tr("&Copy URL"))), m_stop(new QPushButton(tr("&Stop forwarding"))),
      m_otherPort(new QSpinBox), m_exposeOther(new QPushButton(tr("Expose &port")))
{
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setObjectName(QStringLiteral("PortsTable"));
    m_expose->setObjectName(QStringLiteral("ExposeButton"));
    m_open->setObjectName(QStringLiteral("OpenButton"));
    m_copy->setObjectName(QStringLiteral("CopyButton"));
    m_stop->setObjectName(QStringLiteral("StopButton"));
    m_table->setRootIsDecorated(false);
    m_table->setUniformRowHeights(true);
    m_table->setHeaderLabels({tr("Port"), tr("Listening on"), tr("Preview"), tr("Connections")});
    m_table->header()->setSectionResizeMode(Preview, QHeaderView::Stretch);
    m_table->header()->setStretchLastSection(false);
    m_otherPort->setRange(1, 65535);
    m_otherPort->setValue(8000);
    m_otherPort->setToolTip(tr("A port inside the sandbox, also one nothing listens on yet"));
    m_expose->setToolTip(tr("Forward a free port of this machine's 127.0.0.1 to it"));
    m_stop->setToolTip(tr("Close the preview and its open connections"));

    // Two short rows rather than one long one: the tab must fit beside the docks at 1024 px.
    auto* top = new QHBoxLayout;
    top->addWidget(m_message, 1);
    top->addWidget(m_otherPort);
    top->addWidget(m_exposeOther);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_expose, m_open, m_copy, m_stop})
        buttons->addWidget(b);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);

    connect(m_expose, &QPushButton::clicked, this, &PortsView::exposeSelected);
    connect(m_exposeOther, &QPushButton::clicked, this,
            [this] { exposePort(m_otherPort->value()); });
    connect(m_open, &QPushButton::clicked, this, &PortsView::openSelected);
    connect(m_copy, &QPushButton::clicked, this, &PortsView::copySelected);
    connect(m_stop, &QPushButton::clicked, this, &PortsView::stopSelected);
    connect(m_table, &QTreeWidget::itemSelectionChanged, this, &PortsView::updateButtons);
    connect(m_table, &QTreeWidget::itemActivated, this, [this] {
        if (!selectedUrl().isEmpty())
            openSelected();
        else
            exposeSelected();
    });
    m_poll.setInterval(kPollMs);
    m_notice.setSingleShot(true);
    m_notice.setInterval(kNoticeMs);
    connect(&m_poll, &QTimer::timeout, this, &PortsView::refresh);
    setConnection(nullptr);
}

void PortsView::setConnection(SessionConnection* connection)
{
    if (m_connection) disconnect(m_connection, nullptr, this, nullptr);
    m_connection = connection && connection->servesPorts() ? connection : nullptr;
    m_table->clear();
    if (m_listening != 0) Q_EMIT listeningCountChanged(m_listening = 0);
    if (!m_connection) {
        m_poll.stop();
        setMessage(connection ? tr("This session's supervisor forwards no ports.")
                              : tr("Ports are those of a running session."));
        updateButtons();
        return;
    }
    connect(m_connection, &SessionConnection::portReply, this, &PortsView::onReply);
    connect(m_connection, &SessionConnection::portRequestFailed, this, &PortsView::setMessage);
    connect(m_connection, &SessionConnection::exited, this, [this] { setConnection(nullptr); });
    setMessage(tr("Looking for servers in the sandbox…"));
    m_poll.start();
    refresh();
    updateButtons();
}

void PortsView::refresh()
{
    SessionConnection* connection = m_connection.data();
    if (connection && !connection->hasEnded()) connection->requestPorts({{"op", "list"}});
}

void PortsView::onReply(const nlohmann::json& reply)
{
    if (reply.contains("listening")) return showList(reply);
    if (reply.contains("forward")) {
        const auto& f = reply["forward"];
        setMessage(
            tr("Port %1 of the sandbox is at %2").arg(f.value("port", 0)).arg(text(f, "url")));
    }
    refresh(); // an expose or a close changed the list
}

void PortsView::showList(const nlohmann::json& reply)
{
    const int selected = selectedPort();
    struct Row {
        QStringList addresses;
        const nlohmann::json* forward = nullptr;
    };
    std::map<int, Row> rows;
    for (const auto& l : reply["listening"])
        rows[l.value("port", 0)].addresses << text(l, "address");
    for (const auto& f : reply["forwards"])
        rows[f.value("port", 0)].forward = &f;

    m_table->clear();
    const QLocale locale;
    for (const auto& [port, row] : rows) {
        auto* item = new QTreeWidgetItem(m_table);
        item->setData(Port, Qt::DisplayRole, port);
        item->setData(Port, kPortRole, port);
        item->setText(Inside, row.addresses.isEmpty() ? tr("nothing now")
                                                      : row.addresses.join(QStringLiteral(", ")));
        if (row.forward) {
            const QString url = text(*row.forward, "url");
            item->setData(Port, kUrlRole, url);
            item->setText(Preview, url);
            item->setToolTip(Preview, tr("Exposed by %1").arg(text(*row.forward, "exposed_by")));
            const auto refused = row.forward->value("refused", std::uint64_t{0});
            QString used = tr("%n open", nullptr, static_cast<int>(row.forward->value("open", 0)));
            used += QStringLiteral(" · ") + tr("%1 in all")
                                                .arg(locale.toString(static_cast<qulonglong>(
                                                    row.forward->value("connections", 0))));
            if (refused > 0) {
                used +=
                    QStringLiteral(" · ") + tr("%n refused", nullptr, static_cast<int>(refused));
                item->setToolTip(Connections, text(*row.forward, "last_error"));
            }
            item->setText(Connections, used);
        } else {
            item->setText(Preview, tr("not exposed"));
            item->setForeground(Preview, palette().placeholderText());
        }
        if (port == selected) item->setSelected(true);
    }
    for (int c : {Port, Inside, Connections})
        m_table->resizeColumnToContents(c);
    int listening = 0;
    for (const auto& [port, row] : rows)
        listening += row.addresses.isEmpty() ? 0 : 1;
    if (reply.value("network", "") == "host")
        setMessage(tr("This session shares this machine's network: its servers are on "
                      "127.0.0.1 already, at their own ports."));
    else if (rows.empty())
        setMessage(tr("Nothing listens in the sandbox. A server started there (npm run dev, "
                      "python3 -m http.server) shows here."));
    else
        setMessage(tr("Servers listening inside the sandbox. Expose one to open it on this "
                      "machine (127.0.0.1 only)."));
    if (listening != m_listening) Q_EMIT listeningCountChanged(m_listening = listening);
    updateButtons();
}

int PortsView::selectedPort() const
{
    const auto items = m_table->selectedItems();
    return items.isEmpty() ? 0 : items.first()->data(Port, kPortRole).toInt();
}

QString PortsView::selectedUrl() const
{
    const auto items = m_table->selectedItems();
    return items.isEmpty() ? QString() : items.first()->data(Port, kUrlRole).toString();
}

void PortsView::exposeSelected()
{
    if (selectedPort() > 0 && selectedUrl().isEmpty()) exposePort(selectedPort());
}

void PortsView::exposePort(int port)
{
    if (m_connection) m_connection->requestPorts({{"op", "expose"}, {"port", port}});
}

void PortsView::stopSelected()
{
    if (m_connection && !selectedUrl().isEmpty())
        m_connection->requestPorts({{"op", "close"}, {"port", selectedPort()}});
}

void PortsView::openSelected()
{
    const QUrl url(selectedUrl());
    if (url.isEmpty()) return;
    if (openHook) {
        Q_EMIT openRequested(url);
        return;
    }
    const QString failed = tr("No browser opened %1: copy the URL instead.").arg(url.toString());
    // QDesktopServices reports success once xdg-open has started, whether or not a browser took
    // the URL: xdg-open's own status says (it exits non-zero when nothing could open it). A
    // shell runs it, so that closing the window ends the shell, never the browser.
    const QString xdgOpen = QStandardPaths::findExecutable(QStringLiteral("xdg-open"));
    if (xdgOpen.isEmpty()) {
        if (!QDesktopServices::openUrl(url)) setNotice(failed);
        return;
    }
    auto* opener = new QProcess(this);
    opener->setStandardOutputFile(QProcess::nullDevice());
    opener->setStandardErrorFile(QProcess::nullDevice());
    connect(opener, &QProcess::finished, this,
            [this, opener, failed](int code, QProcess::ExitStatus status) {
                if (status != QProcess::NormalExit || code != 0) setNotice(failed);
                opener->deleteLater();
            });
    connect(opener, &QProcess::errorOccurred, this,
            [this, opener, failed](QProcess::ProcessError e) {
                if (e != QProcess::FailedToStart) return;
                setNotice(failed);
                opener->deleteLater();
            });
    opener->start(QStringLiteral("/bin/sh"),
                  {QStringLiteral("-c"), QStringLiteral("\"$0\" \"$1\""), xdgOpen, url.toString()});
}

void PortsView::copySelected()
{
    if (selectedUrl().isEmpty()) return;
    QApplication::clipboard()->setText(selectedUrl());
    setNotice(tr("Copied %1").arg(selectedUrl()));
}

void PortsView::updateButtons()
{
    const bool live = m_connection != nullptr;
    const bool exposed = !selectedUrl().isEmpty();
    m_expose->setEnabled(live && selectedPort() > 0 && !exposed);
    for (QPushButton* b : {m_open, m_copy, m_stop})
        b->setEnabled(live && exposed);
    m_otherPort->setEnabled(live);
    m_exposeOther->setEnabled(live);
}

void PortsView::setMessage(const QString& text)
{
    if (!m_notice.isActive()) m_message->setText(text);
}

void PortsView::setNotice(const QString& text)
{
    m_message->setText(text);
    m_notice.start();
}

QString PortsView::message() const
{
    return m_message->text();
}

} // namespace sbui
