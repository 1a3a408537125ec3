#pragma once
// Renders every page of a window to PNG files (for documentation and visual checks), then
// reports done. Works on the offscreen platform.

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

namespace kb::gui {

class MainWindow;

class ScreenshotRenderer : public QObject {
    Q_OBJECT
public:
    ScreenshotRenderer(MainWindow* window, const QString& outputDir, QObject* parent = nullptr);

    // Waits for the window's database load, then renders. finished() follows.
    void start();
    QStringList writtenFiles() const { return m_written; }

Q_SIGNALS:
    void finished(bool ok, const QString& message);

private:
    void next();
    void grab(const QString& name);
    void fail(const QString& message);

    MainWindow* m_window;
    QString m_dir;
    QStringList m_written;
    std::vector<std::function<void()>> m_steps;
    std::size_t m_step = 0;
    bool m_done = false;
};

} // namespace kb::gui
