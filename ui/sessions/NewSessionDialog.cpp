#include "NewSessionDialog.h"

#include "base/Session.h"
#include "image/ImageStore.h"
#include "policy/CommandRules.h"
#include "policy/LearnedRules.h"
#include "policy/Policy.h"
#include "policy/PolicyJson.h"
#include "settings/Settings.h"
#include "supervision/Supervisor.h"
#include "terminal/MonospaceFont.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTimer>
#include <QToolButton>

namespace sbui {
namespace {

// The policy the session would run with: the document with its learned rules, then the
// dialog's overrides — the same steps `sandbench-cli run` takes.
sb::Result<sb::Policy> effectivePolicy(const LaunchRequest& r)
{
    auto policy = !r.policyFile.isEmpty() ? sb::loadPolicyWithLearned(r.policyFile.toStdString())
                                          : sb::loadPresetWithLearned(r.preset.toStdString());
    if (!policy) return policy;
    if (!r.root.isEmpty()) policy->filesystem.root = r.root.toStdString();
    sb::applyOverrides(*policy, {sb::networkModeFromName(r.network.toStdString()), r.wallSeconds,
                                 r.pids, r.cpuPercent, r.memoryMb, r.approvalTimeoutSeconds});
    return policy;
}

QSpinBox* limitBox(int max, const QString& suffix, const QString& zeroText)
{
    auto* box = new QSpinBox;
    box->setRange(0, max);
    box->setSuffix(suffix);
    box->setSpecialValueText(zeroText);
    return box;
}

} // namespace

QStringList NewSessionDialog::agentsOnPath()
{
    QStringList found;
    for (const char* agent : {"claude", "codex", "aider", "gemini", "opencode", "goose"})
        if (!QStandardPaths::findExecutable(QString::fromLatin1(agent)).isEmpty())
            found << QString::fromLatin1(agent);
    return found;
}

NewSessionDialog::NewSessionDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("New session"));
    auto* form = new QFormLayout;

    m_workspace = new QLineEdit(QDir::currentPath());
    m_browse = new QToolButton;
    m_browse->setText(tr("Browse…"));
    connect(m_browse, &QToolButton::clicked, this, &NewSessionDialog::browseWorkspace);
    // A folder that does not exist yet can be made here (a new project starts empty).
    m_createFolder = new QToolButton;
    m_createFolder->setText(tr("Create folder"));
    m_createFolder->setToolTip(tr("Create this folder, for a project that starts empty"));
    m_createFolder->hide();
    connect(m_createFolder, &QToolButton::clicked, this, [this] {
        const QString folder = m_workspace->text().trimmed();
        if (!QDir().mkpath(folder)) {
            m_message->setText(tr("Cannot create %1.").arg(folder));
            return;
        }
        revalidate();
    });
    auto* workspaceRow = new QHBoxLayout;
    workspaceRow->addWidget(m_workspace);
    workspaceRow->addWidget(m_createFolder);
    workspaceRow->addWidget(m_browse);
    auto* workspaceLabel = new QLabel(tr("&Workspace folder:"));
    workspaceLabel->setBuddy(m_workspace); // a layout row gets no buddy of its own
    form->addRow(workspaceLabel, workspaceRow);

    m_command = new QComboBox;
    m_command->setEditable(true);
    m_command->addItems(agentsOnPath());
    m_command->addItem(QStringLiteral("bash"));
    form->addRow(tr("&Command:"), m_command);

    m_policy = new QComboBox;
    for (const auto& name : sb::presetNames())
        m_policy->addItem(tr("Preset: %1").arg(QString::fromStdString(name)),
                          QString::fromStdString(name));
    m_fileItem = m_policy->count();
    m_policy->addItem(tr("Policy file…"));
    m_policy->setCurrentIndex(
        std::max(0, m_policy->findData(Settings::instance().values().defaultPreset)));
    form->addRow(tr("&Policy:"), m_policy);

    m_network = new QComboBox;
    m_network->addItem(tr("As the policy says"), QString());
    m_network->addItem(tr("None (loopback only)"), QStringLiteral("none"));
    m_network->addItem(tr("Filtered (through the approval proxy)"), QStringLiteral("filtered"));
    m_network->addItem(tr("Host (unfiltered, not recommended)"), QStringLiteral("host"));
    form->addRow(tr("&Network:"), m_network);

    // The imported images (sandbench-cli image import), as the system instead of this machine's.
    m_system = new QComboBox;
    m_system->addItem(tr("As the policy says"), QString());
    if (auto images = sb::listImages())
        for (const sb::ImageInfo& image : *images)
            m_system->addItem(tr("Image: %1").arg(QString::fromStdString(image.name)),
                              QStringLiteral("image:") + QString::fromStdString(image.name));
    m_system->setToolTip(tr("Where /usr, /etc and /lib come from: this machine, or an image "
                            "imported with sandbench-cli image import"));
    form->addRow(tr("S&ystem:"), m_system);

    namespace most = sb::maximum; // the policy's own ranges
    m_memory = limitBox(static_cast<int>(most::memoryMb), tr(" MB"), tr("no limit"));
    m_pids = limitBox(static_cast<int>(most::pids), QString(), tr("no limit"));
    m_cpu = limitBox(static_cast<int>(most::cpuPercent), tr(" %"), tr("no limit"));
    m_wall = limitBox(static_cast<int>(most::limitSeconds), tr(" s"), tr("no limit"));
    form->addRow(tr("&Memory:"), m_memory);
    form->addRow(tr("P&rocesses:"), m_pids);
    form->addRow(tr("C&PU (100 % = one core):"), m_cpu);
    form->addRow(tr("&Time limit:"), m_wall);
    m_approvalTimeout = limitBox(Settings::kMaxApprovalTimeout, tr(" s"), QString());
    m_approvalTimeout->setMinimum(1);
    m_approvalTimeout->setToolTip(tr("How long a request waits for an answer before the "
                                     "policy's timeout action applies"));
    form->addRow(tr("&Approval timeout:"), m_approvalTimeout);

    m_observe = new QCheckBox(tr("&Observe: ask nothing, record what would have been asked"));
    m_observe->setToolTip(tr("To learn a policy (Policy → Suggest from sessions…): what the "
                             "policy would ask is allowed and recorded as such; its deny rules "
                             "still deny, and the sandbox is the same"));
    form->addRow(QString(), m_observe);

    m_message = new QLabel;
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);

    m_preview = new QPlainTextEdit;
    m_preview->setReadOnly(true);
    m_preview->setFont(monospaceFont());
    m_preview->setMinimumWidth(380);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Start"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* left = new QVBoxLayout;
    left->addLayout(form);
    left->addWidget(m_message);
    left->addStretch();
    auto* right = new QVBoxLayout;
    right->addWidget(new QLabel(tr("Effective policy:")));
    right->addWidget(m_preview);
    auto* columns = new QHBoxLayout;
    columns->addLayout(left, 1);
    columns->addLayout(right, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(columns);
    layout->addWidget(m_buttons);

    // Tab goes from field to field; Browse… and Create folder come last, so that Tab then a
    // space in the folder field never opens a file dialog.
    QList<QWidget*> order{m_workspace, m_command, m_policy,       m_network, m_system,
                          m_memory,    m_pids,    m_cpu,          m_wall,    m_approvalTimeout,
                          m_preview,   m_buttons, m_createFolder, m_browse};
    for (qsizetype i = 0; i + 1 < order.size(); ++i)
        setTabOrder(order[i], order[i + 1]);

    m_checkTimer = new QTimer(this);
    m_checkTimer->setSingleShot(true);
    m_checkTimer->setInterval(200);
    connect(m_checkTimer, &QTimer::timeout, this, &NewSessionDialog::runCheck);
    connect(m_workspace, &QLineEdit::textChanged, this, &NewSessionDialog::revalidate);
    connect(m_command, &QComboBox::currentTextChanged, this, &NewSessionDialog::revalidate);
    connect(m_policy, &QComboBox::activated, this, [this](int index) {
        if (index == m_fileItem)
            browsePolicy();
        else
            setPreset(m_policy->itemData(index).toString());
    });
    connect(m_network, &QComboBox::currentIndexChanged, this, &NewSessionDialog::revalidate);
    connect(m_system, &QComboBox::currentIndexChanged, this, &NewSessionDialog::revalidate);
    for (QSpinBox* box : {m_memory, m_pids, m_cpu, m_wall, m_approvalTimeout})
        connect(box, &QSpinBox::valueChanged, this, &NewSessionDialog::revalidate);
    policyChanged();
}

QPushButton* NewSessionDialog::startButton() const
{
    return m_buttons->button(QDialogButtonBox::Ok);
}

void NewSessionDialog::setWorkspace(const QString& folder)
{
    m_workspace->setText(folder);
}

void NewSessionDialog::setCommand(const QString& commandLine)
{
    m_command->setCurrentText(commandLine);
}

void NewSessionDialog::setPreset(const QString& preset)
{
    m_policyFile.clear();
    m_policy->setItemText(m_fileItem, tr("Policy file…"));
    m_policy->setCurrentIndex(std::max(0, m_policy->findData(preset)));
    policyChanged();
}

void NewSessionDialog::setPolicyFile(const QString& file)
{
    m_policyFile = file;
    m_policy->setItemText(m_fileItem, tr("Policy file: %1").arg(QFileInfo(file).fileName()));
    m_policy->setCurrentIndex(m_fileItem);
    policyChanged();
}

void NewSessionDialog::setResume(const QString& id, const QString& workspace)
{
    m_resume = id;
    setWindowTitle(tr("Resume session %1").arg(id));
    setWorkspace(workspace);
    m_workspace->setReadOnly(true);
    m_browse->setEnabled(false);
    m_workspace->setToolTip(tr("The changes of session %1 are to this folder").arg(id));
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Res&ume"));
    revalidate();
}

void NewSessionDialog::setResumeBaseline(const ResumeBaseline& baseline)
{
    QString file = baseline.policyFile;
    if ((file.isEmpty() || !QFileInfo::exists(file)) && baseline.preset.isEmpty() &&
        baseline.document.is_object()) {
        // Its file is gone, or it ran a policy in no file: a copy of what it ran, in its folder.
        if (auto session = sb::loadSession(baseline.sessionId.toStdString())) {
            QFile copy(QFile::decodeName((session->directory() / "policy-ran-under.json").c_str()));
            if (copy.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
                copy.write(QByteArray::fromStdString(baseline.document.dump(2) + '\n')) > 0)
                file = copy.fileName();
        }
    }
    if (!file.isEmpty() && QFileInfo::exists(file))
        setPolicyFile(file);
    else if (!baseline.preset.isEmpty())
        setPreset(baseline.preset);
    m_ran = baseline.ran;
    if (!m_ran) return revalidate();
    m_loadingLimits = true;
    setNetwork(QString::fromUtf8(sb::toString(m_ran->network.mode)));
    m_system->setCurrentIndex(
        std::max(0, m_system->findData(QString::fromStdString(m_ran->filesystem.root))));
    m_memory->setValue(static_cast<int>(m_ran->limits.memoryMb));
    m_pids->setValue(static_cast<int>(m_ran->limits.pids));
    m_cpu->setValue(static_cast<int>(m_ran->limits.cpuPercent));
    m_wall->setValue(static_cast<int>(m_ran->limits.wallSeconds));
    m_approvalTimeout->setValue(static_cast<int>(m_ran->approvals.timeoutSeconds));
    m_loadingLimits = false;
    revalidate();
}

void NewSessionDialog::setNetwork(const QString& mode)
{
    m_network->setCurrentIndex(std::max(0, m_network->findData(mode)));
}

void NewSessionDialog::browseWorkspace()
{
    QString folder =
        QFileDialog::getExistingDirectory(this, tr("Workspace folder"), m_workspace->text());
    if (!folder.isEmpty()) m_workspace->setText(folder);
}

void NewSessionDialog::browsePolicy()
{
    QString file = QFileDialog::getOpenFileName(this, tr("Policy file"), m_workspace->text(),
                                                tr("Policies (*.json);;All files (*)"));
    if (file.isEmpty()) {
        setPreset(Settings::instance().values().defaultPreset);
        return;
    }
    setPolicyFile(file);
}

LaunchRequest NewSessionDialog::request() const
{
    LaunchRequest r;
    r.workspace = QDir::cleanPath(m_workspace->text().trimmed());
    if (m_policy->currentIndex() == m_fileItem)
        r.policyFile = m_policyFile;
    else
        r.preset = m_policy->currentData().toString();
    r.network = m_network->currentData().toString();
    r.root = m_system->currentData().toString();
    r.resumeFrom = m_resume;
    r.memoryMb = static_cast<unsigned>(m_memory->value());
    r.pids = static_cast<unsigned>(m_pids->value());
    r.cpuPercent = static_cast<unsigned>(m_cpu->value());
    r.wallSeconds = static_cast<unsigned>(m_wall->value());
    r.approvalTimeoutSeconds = static_cast<unsigned>(m_approvalTimeout->value());
    r.observe = m_observe->isChecked();
    if (auto words = sb::splitCommandLine(m_command->currentText().toStdString()))
        for (const auto& word : *words)
            r.command << QString::fromStdString(word);
    return r;
}

void NewSessionDialog::policyChanged()
{
    // The limit boxes start from the chosen policy's own limits; the approval timeout from the
    // user's setting when there is one, else from the policy's.
    LaunchRequest r = request();
    r.memoryMb = r.pids = r.cpuPercent = r.wallSeconds = r.approvalTimeoutSeconds = std::nullopt;
    if (auto policy = effectivePolicy(r)) {
        m_loadingLimits = true;
        m_memory->setValue(static_cast<int>(policy->limits.memoryMb));
        m_pids->setValue(static_cast<int>(policy->limits.pids));
        m_cpu->setValue(static_cast<int>(policy->limits.cpuPercent));
        m_wall->setValue(static_cast<int>(policy->limits.wallSeconds));
        const int preferred = Settings::instance().values().approvalTimeoutSeconds;
        m_approvalTimeout->setValue(
            preferred > 0 ? preferred : static_cast<int>(policy->approvals.timeoutSeconds));
        m_loadingLimits = false;
    }
    revalidate();
}

QString NewSessionDialog::warning() const
{
    return m_warning;
}

QString NewSessionDialog::effectivePolicyText() const
{
    return m_preview->toPlainText();
}

NewSessionDialog::Checked NewSessionDialog::check(const LaunchRequest& r,
                                                  const QString& commandLine,
                                                  const std::optional<sb::Policy>& ran)
{
    Checked out;
    auto policy = effectivePolicy(r);
    if (!policy) {
        out.problem = QString::fromStdString(policy.error().describe());
        return out;
    }
    out.preview = QString::fromStdString(sb::policyToJson(*policy).dump(2));
    sb::RunOptions options;
    options.policy = *policy;
    options.workspace = r.workspace.toStdString();
    options.resumeFrom = r.resumeFrom.toStdString();
    for (const QString& arg : r.command)
        options.command.push_back(arg.toStdString());
    auto words = sb::splitCommandLine(commandLine.toStdString());
    if (r.workspace.isEmpty())
        out.problem = tr("Choose a workspace folder.");
    else if (!words)
        out.problem = tr("Command: %1").arg(QString::fromStdString(words.error().message));
    else if (r.command.isEmpty())
        out.problem = tr("Enter the command to run.");
    else if (auto e = sb::checkRunnable(options))
        out.problem = QString::fromStdString(e->describe());
    if (policy->network.mode == sb::NetworkMode::Host)
        out.warning = tr("Network mode host gives the agent this machine's whole network, "
                         "unfiltered and unrecorded.");
    if (!r.command.isEmpty() && !r.command.first().contains(QLatin1Char('/')) &&
        QStandardPaths::findExecutable(r.command.first()).isEmpty())
        out.warning = tr("%1 is not on this machine's PATH; it must exist inside the sandbox.")
                          .arg(r.command.first());
    if (ran)
        if (const QStringList looser = loosenings(*ran, *policy); !looser.isEmpty())
            out.warning = tr("Looser than session %1 ran under: %2.")
                              .arg(r.resumeFrom, looser.join(QStringLiteral("; "))) +
                          (out.warning.isEmpty() ? QString() : QLatin1Char('\n') + out.warning);
    return out;
}

void NewSessionDialog::revalidate()
{
    if (m_loadingLimits) return;
    // Nothing starts until the form as it is now has been checked.
    ++m_generation;
    m_checking = true;
    startButton()->setEnabled(false);
    m_checkTimer->start();
}

void NewSessionDialog::runCheck()
{
    const LaunchRequest r = request();
    const QString commandLine = m_command->currentText();
    const std::uint64_t generation = m_generation;
    ++m_checksRun;
    m_checks.clearPending();
    m_checks.run(
        this,
        [r, commandLine, generation, ran = m_ran] {
            Checked c = check(r, commandLine, ran);
            c.generation = generation;
            return c;
        },
        [this](Checked c) { showChecked(c); });
}

void NewSessionDialog::showChecked(const Checked& checked)
{
    if (checked.generation != m_generation) return; // the form changed meanwhile
    m_checking = false;
    m_problem = checked.problem;
    m_warning = checked.warning;
    m_preview->setPlainText(checked.preview);
    m_message->setText(m_problem.isEmpty() ? m_warning : m_problem);
    QPalette palette = m_message->palette();
    palette.setColor(QPalette::WindowText, m_problem.isEmpty() && m_warning.isEmpty()
                                               ? this->palette().color(QPalette::WindowText)
                                               : QColor(0xc0, 0x39, 0x2b));
    m_message->setPalette(palette);
    startButton()->setEnabled(m_problem.isEmpty());
    const QString folder = m_workspace->text().trimmed();
    m_createFolder->setVisible(!folder.isEmpty() && QDir::isAbsolutePath(folder) &&
                               !QFileInfo::exists(folder));
}

} // namespace sbui
