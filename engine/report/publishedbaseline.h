#pragma once
// Speedup against KernelBench's published baseline times (imported with `kbstudio-cli baselines
// import`): the published eager time of the task on the same GPU model, divided by the
// candidate's median measured here. It crosses machines and sessions, so it is a reference
// next to the paired speedups, never one of them (docs/metrics.md).

#include "db/records.h"

#include <QString>
#include <QStringList>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb::db {
class Connection;
}

namespace kb::report {

// The GPU model a device name names, for matching published baselines: upper case, split at
// every character that is not a letter or digit, vendor words (NVIDIA, GEFORCE, TESLA, QUADRO)
// dropped; the first token holding a digit, joined to the word before it when that token is
// digits only ("NVIDIA H100 80GB HBM3" and "H100_Modal" -> "H100", "NVIDIA GeForce RTX 4090"
// -> "RTX4090"). Empty when no token holds a digit ("cuda", "cpu").
QString gpuModelKey(const QString& deviceName);

struct PublishedComparison {
    std::string device; // the published GPU folder, e.g. H100_Modal
    double publishedMs = 0;
    double speedup = 0; // publishedMs / the candidate's median
};

// The GPU name of every environment: its device name, else its device ("cuda", "cpu").
std::map<db::Id, std::string> environmentGpuNames(db::Connection& conn);

// Every published eager baseline of the database, looked up by task and GPU.
class PublishedBaselines {
public:
    explicit PublishedBaselines(db::Connection& conn);

    bool empty() const { return m_byHash.empty(); }

    // The published row of the task whose GPU model matches gpuName; among several, the one
    // whose device shares the most name tokens with gpuName (e.g. PCIE), then the first by
    // device name. nullopt without a match or without a positive candidate median.
    std::optional<PublishedComparison> compare(db::Id taskId, const std::string& gpuName,
                                               std::optional<double> candidateMedianMs) const;

private:
    struct Row {
        std::string device;
        QString key;
        QStringList tokens;
        double ms = 0;
    };
    std::map<db::Id, std::string> m_hashByTask;
    std::map<std::string, std::vector<Row>> m_byHash;
};

} // namespace kb::report
