#pragma once
// The paired comparison of two models in the reports: which two models are compared, the
// comparison itself (engine/metrics/paired) and its Markdown and XHTML renderings.

#include "../metrics/paired.h"
#include "reportdata.h"

#include <QString>
#include <optional>
#include <utility>
#include <vector>

namespace kb::report {

// The two models a report compares: filter.compare when given, else the selected models when
// exactly two are selected (filter.models); nullopt otherwise.
std::optional<std::pair<QString, QString>> comparedModels(const ExportFilter& filter);

// Compares the two models on their shared tasks over data.outcomes.
metrics::PairedComparison comparePairedModels(const std::vector<metrics::AttemptOutcome>& outcomes,
                                              const QString& modelA, const QString& modelB,
                                              const metrics::PairedOptions& options = {});

// The shared tasks where the two models differ most (largest |log ratio|), at most `count`.
std::vector<metrics::PairedTask> largestDifferences(const metrics::PairedComparison& comparison,
                                                    int count = 10);

QString pairedMarkdown(const metrics::PairedComparison& comparison);
QString pairedXhtmlSection(const metrics::PairedComparison& comparison);

} // namespace kb::report
