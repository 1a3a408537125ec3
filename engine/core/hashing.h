#pragma once

#include <QByteArray>
#include <QString>

namespace kb::engine {

// Lower-case hex SHA-256.
QString sha256Hex(const QByteArray& data);
inline QString sha256Hex(const QString& text) {
    return sha256Hex(text.toUtf8());
}

} // namespace kb::engine
