#pragma once
// Who an engine is (a random owner id, this host, this process) and whether another engine that
// claims work in the database is still alive.

#include "db/leaserepository.h"

#include <QString>

namespace kb::engine {

QString newEngineOwnerId();
QString engineHostName();

// Keeps track of the engines alive in this process, so an engine object that was destroyed
// without a clean stop is known dead at once instead of after its lease expires.
void markEngineAlive(const QString& owner);
void markEngineGone(const QString& owner);

// True when the engine certainly is not running any more: it stopped, or it ran on this host and
// its process is gone (or it ran in this process and was destroyed). Engines on other hosts are
// judged by their heartbeat only.
bool engineKnownDead(const db::EngineRow& engine);

// Marks the engines of this host that died without a clean stop as stopped; returns how many.
int reapDeadEngines(db::LeaseRepository& leases);

} // namespace kb::engine
