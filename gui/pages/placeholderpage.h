#pragma once
// What the window shows instead of the pages when there is nothing to show: no database yet,
// a database without runs, or a database that could not be read.

#include <QWidget>

class QLabel;
class QPushButton;

namespace kb::gui {

class PlaceholderPage : public QWidget {
    Q_OBJECT
public:
    explicit PlaceholderPage(QWidget* parent = nullptr);

    void setMessage(const QString& title, const QString& body);
    QString title() const;
    QString body() const;

Q_SIGNALS:
    void openRequested();

private:
    QLabel* m_title;
    QLabel* m_body;
    QPushButton* m_open;
};

} // namespace kb::gui
