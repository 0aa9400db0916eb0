#include "WorkspaceWatcher.h"

#include <QDirIterator>
#include <QFile>
#include <QSocketNotifier>
#include <cerrno>
#include <sys/inotify.h>
#include <unistd.h>

namespace sbui {
namespace {

constexpr int kDefaultDelayMs = 100;
constexpr int kPollMs = 1000;

constexpr std::uint32_t kMask = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM |
                                IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF |
                                IN_ONLYDIR | IN_DONT_FOLLOW;

} // namespace

WorkspaceWatcher::WorkspaceWatcher(QObject* parent) : QObject(parent)
{
    m_delay.setSingleShot(true);
    m_delay.setInterval(kDefaultDelayMs);
    connect(&m_delay, &QTimer::timeout, this, &WorkspaceWatcher::changed);
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &WorkspaceWatcher::changed);
}

WorkspaceWatcher::~WorkspaceWatcher()
{
    stop();
}

void WorkspaceWatcher::start(const QString& directory)
{
    stop();
    m_root = directory;
    m_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (m_fd < 0) return fallBackToPolling();
    m_notifier = new QSocketNotifier(m_fd, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &WorkspaceWatcher::readEvents);
    watchTree(QFile::encodeName(directory));
}

void WorkspaceWatcher::stop()
{
    m_delay.stop();
    m_poll.stop();
    closeInotify();
}

// Also called from readEvents, i.e. while the notifier emits: it may only be deleted later.
void WorkspaceWatcher::closeInotify()
{
    if (m_notifier) {
        m_notifier->setEnabled(false);
        m_notifier->deleteLater();
        m_notifier = nullptr;
    }
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
    m_paths.clear();
}

bool WorkspaceWatcher::watchOne(const QByteArray& directory)
{
    int wd = ::inotify_add_watch(m_fd, directory.constData(), kMask);
    if (wd >= 0) {
        m_paths.insert(wd, directory);
        return true;
    }
    // Out of watches (fs.inotify.max_user_watches): polling still sees everything.
    if (errno == ENOSPC || errno == ENOMEM) fallBackToPolling();
    return false;
}

// Watches first, then lists: whatever appears in between still raises an event.
void WorkspaceWatcher::watchTree(const QByteArray& directory)
{
    if (m_fd < 0 || !watchOne(directory)) return;
    QDirIterator it(QFile::decodeName(directory),
                    QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System |
                        QDir::NoSymLinks,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        if (!watchOne(QFile::encodeName(it.next())) && m_fd < 0) return;
    }
}

void WorkspaceWatcher::fallBackToPolling()
{
    closeInotify();
    m_poll.start();
}

void WorkspaceWatcher::eventSeen()
{
    if (!m_delay.isActive()) m_delay.start();
}

void WorkspaceWatcher::readEvents()
{
    alignas(struct inotify_event) char buffer[16384];
    bool overflow = false;
    while (m_fd >= 0) {
        ssize_t n = ::read(m_fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        for (char* p = buffer; p < buffer + n;) {
            auto* event = reinterpret_cast<struct inotify_event*>(p);
            p += sizeof(struct inotify_event) + event->len;
            if (event->mask & IN_Q_OVERFLOW) {
                overflow = true;
                continue;
            }
            if (event->mask & IN_IGNORED) {
                m_paths.remove(event->wd);
                continue;
            }
            eventSeen();
            if ((event->mask & IN_ISDIR) && (event->mask & (IN_CREATE | IN_MOVED_TO)) &&
                event->len > 0) {
                auto parent = m_paths.constFind(event->wd);
                if (parent != m_paths.constEnd())
                    watchTree(parent.value() + '/' + QByteArray(event->name));
            }
        }
    }
    // Events were lost, folders created meanwhile among them: watch everything anew.
    if (overflow) {
        QString root = m_root;
        start(root);
        eventSeen();
    }
}

} // namespace sbui
