#include "hashing.h"

#include <QCryptographicHash>

namespace kb::engine {

QString sha256Hex(const QByteArray& data) {
    return QString::fromLatin1(QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
}

} // namespace kb::engine
