#pragma once
// File → Import candidates…: where the candidates are (a KernelBench run folder or a JSON-lines
// file), the model that wrote them, the suite they solve, and whether the new run is evaluated
// in this window, in the background, or only stored. The import itself is the submit hook's
// (MainWindow); its error is shown here and the dialog stays open.

#include "data/candidateimporter.h"
#include "data/catalog.h"

#include <QDialog>
#include <functional>

class QComboBox;
class QLabel;
class QLineEdit;

namespace kb::gui {

class ImportCandidatesDialog : public QDialog {
    Q_OBJECT
public:
    using Start = ImportedRunStart;

    explicit ImportCandidatesDialog(const CatalogPtr& catalog, QWidget* parent = nullptr);

    CandidateImportRequest request() const;
    Start start() const;

    // Imports and starts; returns an empty string, or the error to show in the dialog.
    std::function<QString(const CandidateImportRequest&, Start)> submit;

    QLineEdit* pathEdit() const { return m_path; }
    QLineEdit* modelEdit() const { return m_model; }
    QComboBox* suiteBox() const { return m_suite; }
    QComboBox* startBox() const { return m_start; }
    QComboBox* deviceBox() const { return m_device; }
    QString errorText() const;

    void accept() override;

private:
    QLineEdit* m_path;
    QLineEdit* m_model;
    QComboBox* m_suite;
    QLineEdit* m_runName;
    QComboBox* m_device;
    QComboBox* m_start;
    QLabel* m_error;
};

} // namespace kb::gui
