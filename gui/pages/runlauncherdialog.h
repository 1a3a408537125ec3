#pragma once
// New run: models × suite/levels/task filter × mode × samples × precision × TF32 × baseline and
// compile mode × prompt template × turns/output tokens × skill × backend, with a cost and time
// estimate before anything starts. Before it starts, each model gets one short request built like
// the run's (as `kbstudio-cli run` does; skippable as its --no-preflight): a refusal is shown here
// and the run is not started. The run starts in this window (small runs) or in the background
// (a detached kbstudio-cli).

#include "data/runplan.h"

#include <QDialog>
#include <array>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListView;
class QSpinBox;
class QStandardItemModel;

namespace kb::engine {
class KeyStore;
}

namespace kb::gui {

class RunLauncherDialog : public QDialog {
    Q_OBJECT
public:
    enum class Start { No, HereInThisWindow, InBackground };

    explicit RunLauncherDialog(CatalogPtr catalog, QWidget* parent = nullptr);

    RunPlan plan() const;
    void setPlan(const RunPlan& plan);
    QString estimateText() const;
    QString validationError() const; // empty when the run can start
    Start start() const { return m_start; }
    // The keys the pre-flight request uses; without one, the default key store.
    void setKeyStore(const engine::KeyStore* keys) { m_keys = keys; }
    // The message shown above the buttons: why the run cannot start, or the pre-flight's refusal.
    QString message() const;

private:
    void updateEstimate();
    void updateModeFields();
    void choosePromptFile();
    // Selects the template (a built-in's name or a file, added to the list); empty = default.
    void setPromptTemplate(const QString& nameOrFile);
    void finish(Start start);
    bool preflightPasses();

    CatalogPtr m_catalog;
    Start m_start = Start::No;
    QLineEdit* m_name;
    QComboBox* m_suite;
    std::array<QCheckBox*, 4> m_levels{};
    QLineEdit* m_taskFilter;
    QStandardItemModel* m_modelItems;
    QListView* m_models;
    QComboBox* m_mode;
    QSpinBox* m_samples;
    QComboBox* m_precision;
    QCheckBox* m_tf32;
    QComboBox* m_baseline;
    QComboBox* m_compileMode;
    QComboBox* m_promptTemplate;
    QSpinBox* m_turns;
    QSpinBox* m_maxTurns;
    QSpinBox* m_maxTokens;
    QLineEdit* m_skill;
    QComboBox* m_backend;
    QLabel* m_estimate;
    QCheckBox* m_skipPreflight;
    QLabel* m_error;
    const engine::KeyStore* m_keys = nullptr;
};

} // namespace kb::gui
