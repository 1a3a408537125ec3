#include "attemptdetailpage.h"

#include "data/format.h"
#include "data/transcripthtml.h"
#include "models/findingsmodel.h"
#include "models/timingsummarymodel.h"
#include "models/trialsmodel.h"
#include "pages/codecompareview.h"
#include "plots/timingplot.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace kb::gui {

namespace {

QString esc(const std::string& text) {
    return qs(text).toHtmlEscaped();
}

QString prettyJson(const std::string& json) {
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json));
    if (doc.isNull())
        return qs(json);
    return QString::fromUtf8(doc.toJson(QJsonDocument::Indented));
}

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent) {
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->verticalHeader()->hide();
    view->setAlternatingRowColors(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

QPlainTextEdit* makeCodeView(QWidget* parent) {
    auto* edit = new QPlainTextEdit(parent);
    edit->setReadOnly(true);
    edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return edit;
}

} // namespace

AttemptDetailPage::AttemptDetailPage(QWidget* parent)
    : QWidget(parent)
    , m_loader(new AttemptDetailLoader(this))
    , m_header(new QLabel(this))
    , m_reviewBar(new QWidget(this))
    , m_reviewState(new QLabel(m_reviewBar))
    , m_note(new QLineEdit(m_reviewBar))
    , m_accept(new QPushButton(tr("Accept"), m_reviewBar))
    , m_reject(new QPushButton(tr("Reject"), m_reviewBar))
    , m_clearReview(new QPushButton(tr("Clear review"), m_reviewBar))
    , m_tabs(new QTabWidget(this))
    , m_transcript(new QTextBrowser(this))
    , m_code(new CodeCompareView(this))
    , m_extrasLoader(new AttemptExtrasLoader(this))
    , m_buildErrors(new QStandardItemModel(this))
    , m_buildErrorView(new QListView(this))
    , m_buildSummary(new QLabel(this))
    , m_buildLog(makeCodeView(this))
    , m_correctnessSummary(new QLabel(this))
    , m_trials(new TrialsModel(this))
    , m_trialsView(makeTable(m_trials, this))
    , m_timingSplitter(new QSplitter(Qt::Vertical, this))
    , m_timingPlot(new TimingPlot(m_timingSplitter))
    , m_timing(new TimingSummaryModel(this))
    , m_timingView(makeTable(m_timing, m_timingSplitter))
    , m_findings(new FindingsModel(this))
    , m_findingsView(makeTable(m_findings, this))
    , m_environment(new QTextBrowser(this)) {
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_note->setPlaceholderText(tr("Review note (why you accept or reject)"));
    m_accept->setToolTip(tr("The attempt is genuine: count it in every metric"));
    m_reject->setToolTip(tr("The attempt games the benchmark: count it as failed"));
    m_reviewState->setWordWrap(true);
    auto* reviewLayout = new QHBoxLayout(m_reviewBar);
    reviewLayout->setContentsMargins(0, 0, 0, 0);
    reviewLayout->addWidget(m_reviewState, 2);
    reviewLayout->addWidget(m_note, 2);
    reviewLayout->addWidget(m_accept);
    reviewLayout->addWidget(m_reject);
    reviewLayout->addWidget(m_clearReview);

    auto* back = new QPushButton(tr("← Results"), this);
    back->setToolTip(tr("Back to the results grid (Ctrl+2)"));
    auto* top = new QHBoxLayout;
    top->addWidget(m_header, 1);
    top->addWidget(back, 0, Qt::AlignTop);

    auto* build = new QWidget(this);
    auto* buildLayout = new QVBoxLayout(build);
    buildLayout->addWidget(m_buildSummary);
    m_buildErrorView->setModel(m_buildErrors);
    m_buildErrorView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_buildErrorView->setMaximumHeight(110);
    m_buildErrorView->setToolTip(tr("Click an error to see its line in the Code tab"));
    buildLayout->addWidget(m_buildErrorView);
    buildLayout->addWidget(m_buildLog, 1);
    m_buildSummary->setWordWrap(true);

    auto* correctness = new QWidget(this);
    auto* correctnessLayout = new QVBoxLayout(correctness);
    correctnessLayout->addWidget(m_correctnessSummary);
    correctnessLayout->addWidget(m_trialsView, 1);
    m_correctnessSummary->setWordWrap(true);

    m_timingSplitter->addWidget(m_timingPlot);
    m_timingSplitter->addWidget(m_timingView);
    m_timingSplitter->setStretchFactor(0, 3);
    m_timingSplitter->setStretchFactor(1, 1);

    m_findingsView->setWordWrap(true);
    m_findingsView->horizontalHeader()->setSectionResizeMode(FindingsModel::MessageColumn,
                                                             QHeaderView::Stretch);
    m_findingsView->horizontalHeader()->setSectionResizeMode(FindingsModel::ExplanationColumn,
                                                             QHeaderView::Stretch);
    m_findingsView->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    m_tabs->addTab(m_transcript, tr("Transcript"));
    m_tabs->addTab(m_code, tr("Code"));
    m_tabs->addTab(build, tr("Build"));
    m_tabs->addTab(correctness, tr("Correctness"));
    m_tabs->addTab(m_timingSplitter, tr("Timing"));
    m_tabs->addTab(m_findingsView, tr("Findings"));
    m_tabs->addTab(m_environment, tr("Environment"));

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_reviewBar);
    layout->addWidget(m_tabs, 1);

    connect(back, &QPushButton::clicked, this, &AttemptDetailPage::backRequested);
    connect(m_accept, &QPushButton::clicked, this, [this]() { review(Review::Accepted); });
    connect(m_reject, &QPushButton::clicked, this, [this]() { review(Review::Rejected); });
    connect(m_clearReview, &QPushButton::clicked, this, [this]() { review(Review::None); });
    connect(m_loader, &AttemptDetailLoader::loaded, this, &AttemptDetailPage::present);
    connect(m_loader, &AttemptDetailLoader::failed, this, &AttemptDetailPage::presentFailure);
    connect(m_extrasLoader, &AttemptExtrasLoader::loaded, this, &AttemptDetailPage::presentExtras);
    connect(m_buildErrorView, &QListView::clicked, this,
            [this](const QModelIndex& index) { openBuildError(index.row()); });
    connect(m_buildErrorView, &QListView::activated, this,
            [this](const QModelIndex& index) { openBuildError(index.row()); });
    clear();
}

void AttemptDetailPage::setDatabasePath(const QString& path) {
    if (path != m_databasePath) {
        m_databasePath = path;
        clear();
    }
}

bool AttemptDetailPage::isLoading() const {
    return m_loader->isLoading();
}

void AttemptDetailPage::showAttempt(db::Id attemptId) {
    m_attemptId = attemptId;
    m_header->setText(tr("Loading attempt %1…").arg(attemptId));
    m_loader->load(m_databasePath, attemptId);
    m_extrasLoader->load(m_databasePath, attemptId);
}

void AttemptDetailPage::reload() {
    if (m_attemptId != 0) {
        m_loader->load(m_databasePath, m_attemptId);
        m_extrasLoader->load(m_databasePath, m_attemptId);
    }
}

void AttemptDetailPage::clear() {
    m_attemptId = 0;
    m_detail.reset();
    m_header->setText(tr("No attempt selected. Double-click a cell of the results grid to see "
                         "its transcript, code, build log, trials, timing and findings."));
    m_transcript->clear();
    m_code->clear();
    m_extras.reset();
    m_buildErrors->clear();
    m_buildErrorView->hide();
    m_buildSummary->clear();
    m_buildLog->clear();
    m_correctnessSummary->clear();
    m_environment->clear();
    m_environmentHtml.clear();
    m_trials->setSnapshot(nullptr);
    m_timing->setSnapshot(nullptr);
    m_findings->setSnapshot(nullptr);
    m_timingPlot->setSnapshot(nullptr);
    m_tabs->setTabText(FindingsTab, tr("Findings"));
    updateReviewBar();
}

void AttemptDetailPage::presentFailure(const QString& message) {
    m_detail.reset();
    m_header->setText(
        QStringLiteral("<span style=\"color:#c62828\">%1</span>").arg(message.toHtmlEscaped()));
    updateReviewBar();
}

void AttemptDetailPage::present(const AttemptDetailPtr& detail) {
    m_detail = detail;
    const db::AttemptRow& a = detail->attempt;
    m_attemptId = a.id;

    QStringList facts;
    facts << tr("attempt %1 · run %2 · sample %3 · %4")
                 .arg(a.id)
                 .arg(a.runId)
                 .arg(a.sampleIndex)
                 .arg(qs(a.mode));
    facts << tr("verdict <b>%1</b>").arg(verdictLabel(a.verdict).toHtmlEscaped());
    const auto& u = a.uncertainty;
    if (a.speedupEager)
        facts << tr("%1 vs eager")
                     .arg(formatSpeedupInterval(a.speedupEager, u.eagerLow, u.eagerHigh));
    if (a.speedupCompile)
        facts << tr("%1 vs compile")
                     .arg(formatSpeedupInterval(a.speedupCompile, u.compileLow, u.compileHigh));
    if (u.noisy())
        facts << tr("<b>noisy timing</b> (interval wider than the precision target)");
    if (!u.regime.empty())
        facts << esc(regimeLabel(u.regime).toStdString());
    if (a.suspicious)
        facts << (a.review == "none" ? tr("<b>⚠ suspicious, not reviewed</b>")
                                     : tr("suspicious, %1 by a reviewer").arg(esc(a.review)));
    QString header = tr("<b style=\"font-size:large\">%1 · %2</b> (level %3, %4)<br>%5")
                         .arg(esc(a.modelName), esc(a.taskKey))
                         .arg(a.level)
                         .arg(esc(a.taskName), facts.join(QStringLiteral(" · ")));
    if (!a.message.empty())
        header += QStringLiteral("<br>") + esc(a.message);
    m_header->setText(header);

    m_transcript->setHtml(transcriptHtml(detail->turns));

    presentCode();

    if (detail->build) {
        const auto& b = *detail->build;
        m_buildSummary->setText(tr("Build %1 in %2 s · cache key %3")
                                    .arg(qs(b.status))
                                    .arg(b.seconds, 0, 'f', 1)
                                    .arg(b.cacheKey.empty() ? tr("none") : qs(b.cacheKey)));
        m_buildLog->setPlainText(b.log.empty() ? tr("(empty build log)") : qs(b.log));
    } else {
        m_buildSummary->setText(tr("The candidate was not built."));
        m_buildLog->clear();
    }

    if (detail->evaluation) {
        const auto& e = *detail->evaluation;
        QStringList parts;
        parts << tr("Correctness %1 (%2 trials)")
                     .arg(e.correctnessPassed ? tr("passed") : tr("failed"))
                     .arg(e.trials);
        if (e.maxAbsError)
            parts << tr("max abs error %1").arg(*e.maxAbsError, 0, 'g', 3);
        if (e.maxRelError)
            parts << tr("max rel error %1").arg(*e.maxRelError, 0, 'g', 3);
        parts << tr("harness %1 s").arg(e.harnessSeconds, 0, 'f', 1);
        if (!e.message.empty())
            parts << qs(e.message);
        m_correctnessSummary->setText(parts.join(QStringLiteral(" · ")));
    } else {
        m_correctnessSummary->setText(tr("The candidate was not evaluated."));
    }
    m_trials->setSnapshot(detail);
    m_trialsView->resizeColumnsToContents();
    m_timing->setSnapshot(detail);
    m_timingView->resizeColumnsToContents();
    m_timingPlot->setSnapshot(detail);
    m_findings->setSnapshot(detail);
    m_findingsView->resizeColumnToContents(FindingsModel::SeverityColumn);
    m_findingsView->resizeColumnToContents(FindingsModel::RuleColumn);
    m_tabs->setTabText(FindingsTab, tr("Findings (%1)").arg(detail->findings.size()));

    QString env;
    if (detail->environment) {
        const auto& e = *detail->environment;
        env +=
            tr("<table><tr><td><b>Device</b></td><td>%1 (%2)</td></tr>"
               "<tr><td><b>PyTorch</b></td><td>%3</td></tr><tr><td><b>Python</b></td><td>%4</td></"
               "tr>"
               "<tr><td><b>CUDA</b></td><td>%5</td></tr><tr><td><b>Driver</b></td><td>%6</td></tr>"
               "<tr><td><b>Fingerprint</b></td><td>%7</td></tr></table>")
                .arg(esc(e.deviceName), esc(e.device), esc(e.torch), esc(e.python), esc(e.cuda),
                     esc(e.driver), esc(e.fingerprint));
        env += tr("<h4>Details</h4><pre>%1</pre>").arg(prettyJson(e.detailsJson).toHtmlEscaped());
    } else {
        env += tr("<p>No environment was recorded for this attempt.</p>");
    }
    if (detail->evaluation)
        env += tr("<h4>Evaluation settings</h4><pre>%1</pre>")
                   .arg(prettyJson(detail->evaluation->settingsJson).toHtmlEscaped());
    m_environmentHtml = env;
    renderEnvironment();

    updateReviewBar();
    Q_EMIT detailShown(a.id);
}

void AttemptDetailPage::updateReviewBar() {
    const bool reviewable =
        m_detail && (m_detail->attempt.suspicious || m_detail->attempt.review != "none");
    m_reviewBar->setVisible(reviewable);
    if (!m_detail)
        return;
    const auto& a = m_detail->attempt;
    m_accept->setEnabled(reviewable && a.review != "accepted");
    m_reject->setEnabled(reviewable && a.review != "rejected");
    m_clearReview->setEnabled(reviewable && a.review != "none");
    if (a.review == "none") {
        m_reviewState->setText(
            tr("Flagged suspicious: it does not count until a person accepts it."));
    } else {
        m_reviewState->setText(
            tr("Reviewed: %1%2")
                .arg(qs(a.review), a.reviewNote.empty()
                                       ? QString()
                                       : QString(QStringLiteral(" — ") + qs(a.reviewNote))));
    }
    m_note->setText(qs(a.reviewNote));
}

bool AttemptDetailPage::review(Review decision) {
    if (!m_detail)
        return false;
    const QString error =
        writeReview(m_databasePath, m_detail->attempt.id, decision, m_note->text());
    if (!error.isEmpty()) {
        m_reviewState->setText(
            QStringLiteral("<span style=\"color:#c62828\">%1</span>").arg(error.toHtmlEscaped()));
        return false;
    }
    m_reviewState->setText(tr("Saved: %1").arg(reviewName(decision)));
    const db::Id id = m_detail->attempt.id;
    reload();
    Q_EMIT reviewWritten(id);
    return true;
}

void AttemptDetailPage::presentCode() {
    // The detail and the extras load in parallel; whichever comes second completes the view.
    const bool extrasCurrent = m_extras && m_detail && m_extras->attemptId == m_detail->attempt.id;
    const QString candidate =
        m_detail && m_detail->candidate ? qs(m_detail->candidate->code) : QString();
    std::vector<db::CandidateRow> earlier;
    if (extrasCurrent) {
        for (const auto& c : m_extras->candidates) {
            if (!m_detail->candidate || c.id != m_detail->candidate->id)
                earlier.push_back(c);
        }
    }
    m_code->setSources(candidate, extrasCurrent ? m_extras->referenceSource : QString(), earlier);
}

void AttemptDetailPage::presentExtras(const AttemptExtrasPtr& extras) {
    if (!extras || extras->attemptId != m_attemptId)
        return;
    m_extras = extras;
    m_buildErrors->clear();
    for (const auto& e : extras->buildErrors) {
        QString where = e.file.isEmpty() ? tr("(no location)") : e.file;
        if (e.line > 0)
            where += QStringLiteral(":%1").arg(e.line);
        if (e.column > 0)
            where += QStringLiteral(":%1").arg(e.column);
        auto* item = new QStandardItem(QStringLiteral("%1: %2").arg(where, e.message));
        item->setToolTip(e.message);
        m_buildErrors->appendRow(item);
    }
    m_buildErrorView->setVisible(!extras->buildErrors.empty());
    presentCode();
    renderEnvironment();
    Q_EMIT extrasShown(extras->attemptId);
}

void AttemptDetailPage::renderEnvironment() {
    QString html = m_environmentHtml;
    const bool extrasCurrent = m_extras && m_detail && m_extras->attemptId == m_detail->attempt.id;
    if (extrasCurrent) {
        if (!m_extras->gpuSamples.empty()) {
            QString gpu =
                tr("<h4>GPU state around the evaluation</h4><table "
                   "cellspacing=\"6\"><tr><th>GPU</th><th>phase</th>"
                   "<th>SM clock</th><th>mem "
                   "clock</th><th>temp</th><th>power</th><th>util</th><th>throttle</th></tr>");
            const auto num = [](const std::optional<double>& v, const char* unit) {
                return v ? QStringLiteral("%1 %2").arg(*v, 0, 'f', 0).arg(QString::fromLatin1(unit))
                         : QStringLiteral("–");
            };
            for (const auto& g : m_extras->gpuSamples) {
                gpu +=
                    QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</"
                                   "td><td>%6</td><td>%7</td><td>%8</td></tr>")
                        .arg(g.gpuIndex)
                        .arg(esc(g.phase), num(g.smClockMhz, "MHz"), num(g.memClockMhz, "MHz"),
                             num(g.temperatureC, "°C"), num(g.powerW, "W"), num(g.utilization, "%"),
                             g.throttleReasons.empty() ? tr("none") : esc(g.throttleReasons));
            }
            html += gpu + QStringLiteral("</table>");
        } else if (m_detail && m_detail->environment && m_detail->environment->device == "cuda") {
            html += tr("<p>No GPU state was recorded for this evaluation.</p>");
        }
    }
    m_environment->setHtml(html);
}

void AttemptDetailPage::openBuildError(int row) {
    if (!m_extras || row < 0 || row >= static_cast<int>(m_extras->buildErrors.size()))
        return;
    m_tabs->setCurrentIndex(CodeTab);
    m_code->goToLine(m_extras->buildErrors.at(static_cast<std::size_t>(row)).line);
}

QString AttemptDetailPage::headerText() const {
    return m_header->text();
}

QString AttemptDetailPage::reviewStatusText() const {
    return m_reviewState->text();
}

QString AttemptDetailPage::transcriptText() const {
    return m_transcript->toPlainText();
}

QString AttemptDetailPage::codeText() const {
    return m_code->text();
}

QString AttemptDetailPage::buildLogText() const {
    return m_buildLog->toPlainText();
}

QString AttemptDetailPage::environmentText() const {
    return m_environment->toPlainText();
}

void AttemptDetailPage::saveState(QSettings& settings) const {
    settings.setValue(QStringLiteral("attempt/timingSplitter"), m_timingSplitter->saveState());
    settings.setValue(QStringLiteral("attempt/tab"), m_tabs->currentIndex());
}

void AttemptDetailPage::restoreState(const QSettings& settings) {
    m_timingSplitter->restoreState(
        settings.value(QStringLiteral("attempt/timingSplitter")).toByteArray());
    m_tabs->setCurrentIndex(settings.value(QStringLiteral("attempt/tab"), 0).toInt());
}

} // namespace kb::gui
