#pragma once

#include <QString>
#include <stdexcept>

namespace kb::engine {

// An error whose message is meant for the user: it says what failed and what to do.
class Error : public std::runtime_error {
public:
    explicit Error(const QString& message)
        : std::runtime_error(message.toStdString()) {}
    QString message() const { return QString::fromUtf8(what()); }
};

} // namespace kb::engine
