#pragma once
// Everything about one attempt: transcript, candidate code, build log, correctness trials,
// timing samples, environment and anti-cheat findings; and the review of suspicious attempts.

#include "data/attemptdetailloader.h"
#include "data/attemptextras.h"
#include "data/reviewwriter.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSettings;
class QSplitter;
class QTabWidget;
class QListView;
class QStandardItemModel;
class QTableView;
class QTextBrowser;

namespace kb::gui {

class CodeCompareView;

class FindingsModel;
class TimingPlot;
class TimingSummaryModel;
class TrialsModel;

class AttemptDetailPage : public QWidget {
    Q_OBJECT
public:
    enum Tab {
        TranscriptTab,
        CodeTab,
        BuildTab,
        CorrectnessTab,
        TimingTab,
        FindingsTab,
        EnvironmentTab
    };

    explicit AttemptDetailPage(QWidget* parent = nullptr);

    void setDatabasePath(const QString& path);
    // Loads and shows an attempt (in the background).
    void showAttempt(db::Id attemptId);
    void clear();
    // Loads the shown attempt again.
    void reload();

    db::Id attemptId() const { return m_attemptId; }
    AttemptDetailPtr detail() const { return m_detail; }
    bool isLoading() const;

    TrialsModel* trialsModel() const { return m_trials; }
    FindingsModel* findingsModel() const { return m_findings; }
    TimingSummaryModel* timingModel() const { return m_timing; }
    TimingPlot* timingPlot() const { return m_timingPlot; }
    QTabWidget* tabs() const { return m_tabs; }
    QPushButton* acceptButton() const { return m_accept; }
    QPushButton* rejectButton() const { return m_reject; }
    QPushButton* clearReviewButton() const { return m_clearReview; }
    QLineEdit* noteEdit() const { return m_note; }
    QString headerText() const;
    QString reviewStatusText() const;
    QString transcriptText() const;
    QString codeText() const;
    QString buildLogText() const;
    CodeCompareView* codeView() const { return m_code; }
    QStandardItemModel* buildErrorsModel() const { return m_buildErrors; }
    AttemptExtrasPtr extras() const { return m_extras; }
    // Opens the Code tab at the line of build error `row` (what a click on the error does).
    void openBuildError(int row);
    QString environmentText() const;

    void saveState(QSettings& settings) const;
    void restoreState(const QSettings& settings);

public Q_SLOTS:
    // Writes the review of the shown attempt; returns false (and shows why) on failure.
    bool review(kb::gui::Review decision);

Q_SIGNALS:
    void extrasShown(kb::db::Id attemptId);
    void detailShown(kb::db::Id attemptId);
    void reviewWritten(kb::db::Id attemptId);
    void backRequested();

private:
    void present(const AttemptDetailPtr& detail);
    void presentFailure(const QString& message);
    void presentExtras(const AttemptExtrasPtr& extras);
    void presentCode();
    void renderEnvironment();
    void updateReviewBar();

    QString m_databasePath;
    db::Id m_attemptId = 0;
    AttemptDetailPtr m_detail;
    AttemptDetailLoader* m_loader;

    QLabel* m_header;
    QWidget* m_reviewBar;
    QLabel* m_reviewState;
    QLineEdit* m_note;
    QPushButton* m_accept;
    QPushButton* m_reject;
    QPushButton* m_clearReview;
    QTabWidget* m_tabs;
    QTextBrowser* m_transcript;
    CodeCompareView* m_code;
    AttemptExtrasLoader* m_extrasLoader;
    AttemptExtrasPtr m_extras;
    QString m_environmentHtml; // without the GPU state, which comes with the extras
    QStandardItemModel* m_buildErrors;
    QListView* m_buildErrorView;
    QLabel* m_buildSummary;
    QPlainTextEdit* m_buildLog;
    QLabel* m_correctnessSummary;
    TrialsModel* m_trials;
    QTableView* m_trialsView;
    QSplitter* m_timingSplitter;
    TimingPlot* m_timingPlot;
    TimingSummaryModel* m_timing;
    QTableView* m_timingView;
    FindingsModel* m_findings;
    QTableView* m_findingsView;
    QTextBrowser* m_environment;
};

} // namespace kb::gui
