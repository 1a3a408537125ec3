#pragma once
// Where the program finds its own resources (harness, sample suite, demo candidates) and the
// Python interpreter that runs the harness.

#include <QString>

namespace kb::engine {

// The resources folder: $KBSTUDIO_RESOURCES, else <bin>/../share/kbstudio/resources when
// installed, else the source tree's resources/ (running from a build tree).
QString resourcesDir();
QString harnessDir();
QString sampleSuiteDir();
QString demoDir();

// $KBSTUDIO_PYTHON, else /usr/bin/python3 (a python with torch), else python3 from PATH.
QString pythonExecutable();

// The per-user data folder, where the default database lives.
QString dataDir();
QString defaultDatabasePath();

} // namespace kb::engine
