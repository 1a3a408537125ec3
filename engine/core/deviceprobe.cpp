#include "deviceprobe.h"

#include "paths.h"

#include <QProcess>

namespace kb::engine {

QString detectDevice() {
    QProcess p;
    p.start(
        pythonExecutable(),
        {QStringLiteral("-c"),
         QStringLiteral("import torch; print('cuda' if torch.cuda.is_available() else 'cpu')")});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return QStringLiteral("cpu");
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed() == QLatin1String("cuda")
               ? QStringLiteral("cuda")
               : QStringLiteral("cpu");
}

} // namespace kb::engine
