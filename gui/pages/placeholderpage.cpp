#include "placeholderpage.h"

#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace kb::gui {

PlaceholderPage::PlaceholderPage(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_body(new QLabel(this))
    , m_open(new QPushButton(tr("Open database…"), this)) {
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.5);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setAlignment(Qt::AlignCenter);
    m_title->setWordWrap(true);
    m_body->setAlignment(Qt::AlignCenter);
    m_body->setWordWrap(true);
    m_body->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_body->setTextFormat(Qt::PlainText);

    auto* layout = new QVBoxLayout(this);
    layout->addStretch(2);
    layout->addWidget(m_title);
    layout->addSpacing(fontMetrics().height());
    layout->addWidget(m_body);
    layout->addSpacing(fontMetrics().height());
    layout->addWidget(m_open, 0, Qt::AlignHCenter);
    layout->addStretch(3);
    connect(m_open, &QPushButton::clicked, this, &PlaceholderPage::openRequested);
}

void PlaceholderPage::setMessage(const QString& title, const QString& body) {
    m_title->setText(title);
    m_body->setText(body);
}

QString PlaceholderPage::title() const {
    return m_title->text();
}

QString PlaceholderPage::body() const {
    return m_body->text();
}

} // namespace kb::gui
