#include "RuleTableModel.h"

#include <QApplication>
#include <QDataStream>
#include <QIODevice>
#include <QMimeData>
#include <QStyle>

namespace sbui {
namespace {

// The dragged rows and the model they come from: rules move within one table only.
QByteArray encodeRows(const void* model, std::vector<int> rows)
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out << quintptr(model) << qint32(rows.size());
    for (int r : rows)
        out << qint32(r);
    return bytes;
}

std::vector<int> decodeRows(const QByteArray& bytes, const void* model)
{
    QDataStream in(bytes);
    quintptr source = 0;
    qint32 count = 0;
    in >> source >> count;
    std::vector<int> rows;
    if (source != quintptr(model) || count < 0 || count > 100000) return rows;
    for (qint32 i = 0; i < count && in.status() == QDataStream::Ok; ++i) {
        qint32 r = 0;
        in >> r;
        rows.push_back(r);
    }
    return rows;
}

} // namespace

RuleTableModel::RuleTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RuleTableModel::setReadOnly(bool readOnly)
{
    if (m_readOnly == readOnly) return;
    m_readOnly = readOnly;
    if (rowCount() > 0) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

int RuleTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ruleCount();
}

Qt::ItemFlags RuleTableModel::flags(const QModelIndex& index) const
{
    // Drops go between rows (the root accepts them), never onto a rule.
    if (!index.isValid()) return m_readOnly ? Qt::NoItemFlags : Qt::ItemIsDropEnabled;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (!m_readOnly) f |= Qt::ItemIsEditable | Qt::ItemIsDragEnabled;
    return f;
}

QVariant RuleTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    // Rules are numbered from 1, as the decisions name them ("rule 3").
    if (orientation == Qt::Vertical && role == Qt::DisplayRole) return section + 1;
    return QAbstractTableModel::headerData(section, orientation, role);
}

Qt::DropActions RuleTableModel::supportedDropActions() const
{
    return Qt::MoveAction;
}

Qt::DropActions RuleTableModel::supportedDragActions() const
{
    return Qt::MoveAction;
}

QStringList RuleTableModel::mimeTypes() const
{
    return {QString::fromLatin1(kMimeType)};
}

QMimeData* RuleTableModel::mimeData(const QModelIndexList& indexes) const
{
    std::vector<int> rows;
    for (const QModelIndex& i : indexes)
        if (i.isValid() && i.model() == this) rows.push_back(i.row());
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    if (rows.empty()) return nullptr;
    auto* data = new QMimeData;
    data->setData(QString::fromLatin1(kMimeType), encodeRows(this, rows));
    return data;
}

bool RuleTableModel::canDropMimeData(const QMimeData* data, Qt::DropAction action, int, int,
                                     const QModelIndex&) const
{
    return !m_readOnly && action == Qt::MoveAction && data &&
           !decodeRows(data->data(QString::fromLatin1(kMimeType)), this).empty();
}

bool RuleTableModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                                  const QModelIndex& parent)
{
    if (!canDropMimeData(data, action, row, column, parent)) return false;
    const std::vector<int> rows = decodeRows(data->data(QString::fromLatin1(kMimeType)), this);
    if (row < 0) row = parent.isValid() ? parent.row() : rowCount();
    // Tables select one rule at a time; a block moves as one when it is contiguous, otherwise
    // its first rule moves.
    const bool contiguous = rows.back() - rows.front() + 1 == static_cast<int>(rows.size());
    const int count = contiguous ? static_cast<int>(rows.size()) : 1;
    if (rows.front() < 0 || rows.front() + count > rowCount()) return false;
    if (row >= rows.front() && row <= rows.front() + count) return true; // lands where it is
    return moveRows({}, rows.front(), count, {}, row);
}

bool RuleTableModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                              const QModelIndex& destinationParent, int destinationChild)
{
    if (m_readOnly || sourceParent.isValid() || destinationParent.isValid() || count <= 0 ||
        sourceRow < 0 || sourceRow + count > rowCount() || destinationChild < 0 ||
        destinationChild > rowCount())
        return false;
    if (!beginMoveRows({}, sourceRow, sourceRow + count - 1, {}, destinationChild)) return false;
    moveRuleRows(sourceRow, count, destinationChild);
    endMoveRows();
    Q_EMIT edited();
    return true;
}

bool RuleTableModel::removeRows(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || count <= 0 || row < 0 || row + count > rowCount()) return false;
    beginRemoveRows({}, row, row + count - 1);
    eraseRuleRows(row, count);
    endRemoveRows();
    Q_EMIT edited();
    return true;
}

bool RuleTableModel::moveRule(int row, int delta)
{
    const int target = row + delta;
    if (row < 0 || row >= rowCount() || target < 0 || target >= rowCount() || delta == 0)
        return false;
    // moveRows counts the destination before the move: one down is "before row + 2".
    return moveRows({}, row, 1, {}, delta > 0 ? target + 1 : target);
}

std::vector<int> RuleTableModel::problemRows() const
{
    std::vector<int> rows;
    for (int r = 0; r < rowCount(); ++r)
        if (!problemAt(r).text.isEmpty()) rows.push_back(r);
    return rows;
}

QVariant RuleTableModel::problemData(const QModelIndex& index, int role) const
{
    const Problem& p = problemAt(index.row());
    if (p.text.isEmpty() || p.column != index.column()) return {};
    if (role == Qt::DecorationRole)
        return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
    if (role == Qt::ToolTipRole) return p.text;
    return {};
}

} // namespace sbui
