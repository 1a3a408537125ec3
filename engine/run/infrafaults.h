#pragma once
// Telling the machinery's failures apart from the candidate's, from what the C++ side can see:
// exit statuses, signals, and the filesystem itself. A candidate can print any words it likes,
// so words alone never decide: a "disk full" message counts only when the disk is full.

#include <QString>
#include <QtGlobal>

namespace kb::engine {

// Below this much free space the build cache's filesystem counts as full.
inline constexpr qint64 kDiskFullBytes = qint64(512) * 1024 * 1024;

// The text reports that a write failed for lack of space (ENOSPC, EDQUOT, EFBIG).
bool mentionsDiskFull(const QString& text);
// Free bytes for an unprivileged writer on the filesystem of `path` (its nearest existing
// folder); -1 when it cannot be read.
qint64 freeBytesAt(const QString& path);
// A build or evaluation that failed saying "no space" while the filesystem under `dir` has less
// than kDiskFullBytes free: the disk's fault, not the candidate's. freeBytes < 0 reads it.
bool isDiskFullFailure(const QString& message, const QString& dir, qint64 freeBytes = -1);

// The harness says the failure was the machinery's: exit status 75 (EX_TEMPFAIL), or an error
// document whose error is "infrastructure" (a full disk on the trusted side, a lost device).
inline constexpr int kHarnessInfrastructureExit = 75;
bool harnessReportsInfrastructure(int exitCode, const QString& errorKind);

// A signal that the evaluation did not send (the timeout kills with SIGKILL and says so) and
// that a candidate in its sandbox cannot send to the harness: SIGKILL (the OOM killer, an
// operator), SIGTERM, SIGINT, SIGHUP, SIGQUIT. The harness was stopped from outside.
bool isExternalStopSignal(int signal);

} // namespace kb::engine
