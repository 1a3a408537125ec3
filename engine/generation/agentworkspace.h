#pragma once
// The files an agent works on: one folder per attempt. Every path the model gives is resolved
// inside it; anything that would leave it (.., absolute paths, symbolic links pointing out) is
// refused, so the file tools can only read and write the workspace.

#include <QJsonObject>
#include <QString>
#include <optional>

namespace kb::engine {

struct ToolOutput {
    QString text;
    bool isError = false;
};

class AgentWorkspace {
public:
    explicit AgentWorkspace(QString root);
    const QString& root() const { return m_root; }

    // The absolute path of a workspace-relative path; empty with *error set when it would
    // leave the workspace.
    QString resolve(const QString& relative, QString* error) const;

    ToolOutput listFiles(const QJsonObject& args) const;
    ToolOutput readFile(const QJsonObject& args) const;
    ToolOutput writeFile(const QJsonObject& args) const;
    ToolOutput editFile(const QJsonObject& args) const;
    ToolOutput grep(const QJsonObject& args) const;

    // Plain helpers for the session.
    bool write(const QString& relative, const QByteArray& bytes) const;
    std::optional<QString> read(const QString& relative) const;

private:
    QString m_root;
};

} // namespace kb::engine
