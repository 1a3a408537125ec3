#pragma once
// A task suite as read from disk, before it is stored.

#include <QList>
#include <QString>
#include <QStringList>

namespace kb::engine {

struct TaskDefinition {
    QString key;  // stable id inside the suite, e.g. "L1_relu" or "L1_19"
    QString name; // human name, e.g. "ReLU"
    int level = 1;
    QString path; // file it was read from
    QString source;
    QStringList ops;
};

struct SuiteDefinition {
    QString name;
    QString description;
    QString source;       // folder it was read from
    bool builtin = false; // shipped with the program (the sample suite)
    QList<TaskDefinition> tasks;
    QStringList problems; // one readable line per task file that could not be used
};

} // namespace kb::engine
