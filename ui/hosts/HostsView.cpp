#include "HostsView.h"

#include "HostList.h"
#include "sessions/SessionHub.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sbui {

namespace {
constexpr int kUrlRole = Qt::UserRole + 1;
}

HostsView::HostsView(SessionHub* hub, QWidget* parent)
    : QWidget(parent), m_hub(hub), m_field(new QLineEdit), m_add(new QPushButton(tr("&Add"))),
      m_remove(new QPushButton(tr("&Remove"))), m_connect(new QPushButton(tr("&Connect now"))),
      m_list(new QTreeWidget), m_message(new QLabel)
{
    setObjectName(QStringLiteral("HostsView"));
    m_field->setPlaceholderText(tr("ssh://user@host:port or an alias of ~/.ssh/config"));
    m_field->setToolTip(tr("A host reached by ssh with your keys and ~/.ssh/config (never a "
                           "password prompt); it needs Sandbench installed"));
    m_field->setClearButtonEnabled(true);
    m_list->setColumnCount(2);
    m_list->setHeaderLabels({tr("Host"), tr("Connection")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->header()->setStretchLastSection(true);
    m_list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_remove->setToolTip(tr("Forget the host; its sessions go on there"));
    m_connect->setToolTip(tr("Dial the host now instead of waiting"));

    auto* addRow = new QHBoxLayout;
    addRow->addWidget(m_field, 1);
    addRow->addWidget(m_add);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_connect);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(addRow);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_message);
    layout->addLayout(buttons);

    connect(m_add, &QPushButton::clicked, this, [this] { addHost(m_field->text()); });
    connect(m_field, &QLineEdit::returnPressed, this, [this] { addHost(m_field->text()); });
    connect(m_field, &QLineEdit::textEdited, this, [this] {
        m_addError.clear();
        showMessage();
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        if (QTreeWidgetItem* item = m_list->currentItem())
            removeHost(item->data(0, kUrlRole).toString());
    });
    connect(m_connect, &QPushButton::clicked, this, [this] {
        if (QTreeWidgetItem* item = m_list->currentItem())
            if (RemoteHostLink* link = m_hub->host(item->data(0, kUrlRole).toString()))
                link->reconnectNow();
    });
    connect(m_list, &QTreeWidget::currentItemChanged, this, &HostsView::updateButtons);
    connect(m_hub, &SessionHub::hostsChanged, this, &HostsView::update);
    m_countdown.setInterval(1000);
    connect(&m_countdown, &QTimer::timeout, this, &HostsView::update);
    update();
}

bool HostsView::addHost(const QString& text)
{
    QString error;
    const QString url = HostList::add(text, &error);
    if (url.isEmpty()) {
        m_addError = tr("Not added: %1").arg(error);
        showMessage();
        return false;
    }
    m_addError.clear();
    m_field->clear();
    m_hub->setHosts(HostList::load());
    update();
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (m_list->topLevelItem(i)->data(0, kUrlRole).toString() == url)
            m_list->setCurrentItem(m_list->topLevelItem(i));
    Q_EMIT hostsEdited();
    return true;
}

void HostsView::removeHost(const QString& url)
{
    HostList::remove(url);
    m_hub->setHosts(HostList::load());
    update();
    Q_EMIT hostsEdited();
}

void HostsView::update()
{
    const QString current =
        m_list->currentItem() ? m_list->currentItem()->data(0, kUrlRole).toString() : QString();
    const QStringList urls = HostList::load();
    // Rows in the order the hosts were added; kept (with the selection) when nothing moved.
    const QSignalBlocker quiet(m_list);
    while (m_list->topLevelItemCount() > urls.size())
        delete m_list->takeTopLevelItem(m_list->topLevelItemCount() - 1);
    bool waiting = false;
    for (int i = 0; i < urls.size(); ++i) {
        QTreeWidgetItem* item = m_list->topLevelItem(i);
        if (!item) item = new QTreeWidgetItem(m_list);
        const QString& url = urls[i];
        const RemoteHostLink* link = m_hub->host(url);
        item->setData(0, kUrlRole, url);
        item->setText(0, HostList::displayName(url));
        item->setToolTip(0, url);
        const QString state = link ? link->stateText() : tr("not connected");
        item->setText(1, state);
        item->setToolTip(1, link && !link->lastError().isEmpty()
                                ? tr("%1\nLast error: %2").arg(state, link->lastError())
                                : state);
        item->setIcon(0, QIcon(link && link->state() == RemoteHostLink::State::Connected
                                   ? QStringLiteral(":/icons/live.svg")
                                   : QStringLiteral(":/icons/interrupted.svg")));
        waiting = waiting || (link && link->state() == RemoteHostLink::State::Waiting);
        if (url == current && m_list->currentItem() != item) m_list->setCurrentItem(item);
    }
    // A host selected, so that Remove and Connect now apply without a click first.
    if (!m_list->currentItem() && m_list->topLevelItemCount() > 0)
        m_list->setCurrentItem(m_list->topLevelItem(0));
    if (waiting && !m_countdown.isActive()) m_countdown.start();
    if (!waiting) m_countdown.stop();
    updateButtons();
}

void HostsView::updateButtons()
{
    const QTreeWidgetItem* selected = m_list->currentItem();
    const RemoteHostLink* link =
        selected ? m_hub->host(selected->data(0, kUrlRole).toString()) : nullptr;
    m_remove->setEnabled(selected != nullptr);
    m_connect->setEnabled(link && link->state() == RemoteHostLink::State::Waiting);
    showMessage();
}

void HostsView::showMessage()
{
    QString text = m_addError;
    if (text.isEmpty()) {
        // The selected host's error, else the first host's that has one.
        const RemoteHostLink* shown = nullptr;
        if (const QTreeWidgetItem* item = m_list->currentItem())
            shown = m_hub->host(item->data(0, kUrlRole).toString());
        if (!shown || shown->lastError().isEmpty())
            for (int i = 0; i < m_list->topLevelItemCount(); ++i)
                if (const RemoteHostLink* link =
                        m_hub->host(m_list->topLevelItem(i)->data(0, kUrlRole).toString());
                    link && !link->lastError().isEmpty() &&
                    link->state() != RemoteHostLink::State::Connected) {
                    shown = link;
                    break;
                }
        if (shown && !shown->lastError().isEmpty() &&
            shown->state() != RemoteHostLink::State::Connected)
            text = shown->lastError(); // it names the host
    }
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

QString HostsView::messageText() const
{
    return m_message->text();
}

} // namespace sbui
