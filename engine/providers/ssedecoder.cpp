#include "ssedecoder.h"

#include <utility>

namespace kb::engine {

QList<SseEvent> SseDecoder::feed(QByteArrayView bytes) {
    QList<SseEvent> out;
    qsizetype start = 0;
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const char c = bytes[i];
        if (m_skipLf) {
            m_skipLf = false;
            if (c == '\n') {
                start = i + 1;
                continue;
            }
        }
        if (c != '\n' && c != '\r')
            continue;
        m_line.append(bytes.sliced(start, i - start));
        takeLine(out);
        m_skipLf = c == '\r';
        start = i + 1;
    }
    m_line.append(bytes.sliced(start));
    return out;
}

void SseDecoder::takeLine(QList<SseEvent>& out) {
    const QByteArray line = std::exchange(m_line, {});
    if (line.isEmpty()) {
        if (m_hasData) {
            if (m_current.data.endsWith('\n'))
                m_current.data.chop(1);
            out.append(std::move(m_current));
        }
        m_current = {};
        m_hasData = false;
        m_hasFields = false;
        return;
    }
    if (line.startsWith(':'))
        return; // a comment, often a keep-alive
    m_hasFields = true;
    const qsizetype colon = line.indexOf(':');
    const QByteArray field = colon < 0 ? line : line.left(colon);
    QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
    if (value.startsWith(' '))
        value.remove(0, 1);
    if (field == "data") {
        m_current.data.append(value);
        m_current.data.append('\n');
        m_hasData = true;
    } else if (field == "event") {
        m_current.event = value;
    } else if (field == "id") {
        m_current.id = value;
    }
    // "retry" and unknown fields are ignored, as the spec says.
}

bool SseDecoder::hasPartialEvent() const {
    return !m_line.isEmpty() || m_hasFields;
}

QString SseDecoder::finish() {
    const bool partial = hasPartialEvent();
    m_line.clear();
    m_current = {};
    m_hasData = false;
    m_hasFields = false;
    m_skipLf = false;
    return partial ? QStringLiteral("stream ended before completion (in the middle of an event)")
                   : QString();
}

} // namespace kb::engine
