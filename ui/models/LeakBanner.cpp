#include "LeakBanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>

namespace sbui {

QString leakText(const ModelUsageTotals::Leak& leak)
{
    QString host = leak.host;
    if (host.contains(u':')) host = u'[' + host + u']';
    QString text = LeakBanner::tr("%1 to %2:%3").arg(leak.secret, host).arg(leak.port);
    QStringList how;
    if (!leak.where.isEmpty()) how << LeakBanner::tr("in the %1").arg(leak.where);
    if (!leak.program.isEmpty()) how << LeakBanner::tr("by %1").arg(leak.program);
    if (!how.isEmpty()) text += QStringLiteral(" (") + how.join(QStringLiteral(", ")) + u')';
    return text;
}

LeakBanner::LeakBanner(QWidget* parent) : QFrame(parent), m_label(new QLabel)
{
    setObjectName(QStringLiteral("LeakBanner"));
    // Red whatever the palette: this is the one thing on the page that must stand out.
    setStyleSheet(QStringLiteral("#LeakBanner { background: #b3261e; border-radius: 3px; }"
                                 "#LeakBanner QLabel { color: white; }"
                                 "#LeakBanner QLabel a { color: white; }"));
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::RichText);
    m_label->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(m_label, &QLabel::linkActivated, this, &LeakBanner::detailsRequested);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(10, 6, 10, 6);
    row->addWidget(m_label, 1);
    hide();
}

void LeakBanner::setLeaks(const std::vector<ModelUsageTotals::Leak>& leaks)
{
    setVisible(!leaks.empty());
    if (leaks.empty()) return;
    const QString first = leakText(leaks.back()).toHtmlEscaped();
    const QString what = leaks.size() == 1
                             ? tr("<b>Attempted secret leak, refused:</b> %1.").arg(first)
                             : tr("<b>%n attempted secret leaks, refused;</b> the last: %1.",
                                  nullptr, static_cast<int>(leaks.size()))
                                   .arg(first);
    m_label->setText(what + QStringLiteral(" <a href=\"models\">%1</a>").arg(tr("Details")));
    m_label->setAccessibleName(
        m_label->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))));
}

} // namespace sbui
