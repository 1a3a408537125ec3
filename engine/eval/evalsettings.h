#pragma once
// The evaluation settings of a run. They are stored with the run and every number it produces.

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace kb::engine {

// fp32, fp16 and bf16: the precisions a run can evaluate in.
QStringList knownPrecisions();
// atol = rtol of a precision, as KernelBench's (and the harness's PRECISION_TOLERANCE):
// 1e-4 for fp32, 1e-2 for fp16 and bf16; 1e-4 for anything else.
double defaultTolerance(const QString& precision);
// The version of this program (the project's version).
QString currentProgramVersion();

struct EvalSettings {
    QString device = QStringLiteral("cpu"); // cpu or cuda
    int correctnessTrials = 5;
    int timingTrials = 30;
    int warmup = 3;
    double maxTimingSeconds = 10;
    QString precision = QStringLiteral("fp32");
    // The tolerances follow the precision (defaultTolerance) unless set explicitly.
    double atol = 1e-4;
    double rtol = 1e-4;
    bool toleranceExplicit = false;
    bool allowTf32 = false;
    bool compileBaseline = false;
    QString compileMode = QStringLiteral("default");
    bool allowTorchOps = false;
    // Vendor libraries a candidate may call: none, gemm (cuBLAS for matrix products),
    // conv (cuDNN for convolutions) or all.
    QString vendorLibraries = QStringLiteral("none");
    double timeoutSeconds = 300;      // evaluation phase (correctness + timing) of one attempt
    double buildTimeoutSeconds = 900; // static check + build phase of one attempt
    double excessiveSpeedup = 10.0;   // above this vs eager an attempt is suspicious
    int buildJobs = 2;                // parallel builds
    int generationJobs = 8;           // attempts generating at once (provider limits apply too)
    quint64 seed = 0;                 // secret per-run seed; 0 = draw one at run creation
    // Scheduling: where harness calls run and how transient failures are retried.
    QString backend = QStringLiteral("local"); // local or slurm
    QString slurmPartition;                    // empty = the cluster's default
    int slurmMaxJobs = 8;                      // evaluation jobs submitted at once
    QString slurmArgs;                         // more sbatch options
    int retryLimit = 3;                        // retries of a lost worker / harness failure
    double retryBaseSeconds = 0.5;             // first backoff delay (doubles, with jitter)
    bool cpuTimingExclusive = true;            // CPU runs: never time while something compiles
    // The program that created the run (stored with it; "unknown" for runs older than the field).
    QString programVersion = currentProgramVersion();

    // Sets the precision; unless the tolerances were set explicitly they become its defaults.
    void setPrecision(const QString& p);
    // Sets both tolerances explicitly (they no longer follow the precision).
    void setTolerance(double absolute, double relative);

    QJsonObject toJson() const;
    static EvalSettings fromJson(const QJsonObject& o);
    // The part of the settings that changes baseline numbers (cache key of baselines).
    QString baselineKey() const;
};

} // namespace kb::engine
