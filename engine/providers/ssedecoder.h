#pragma once
// Server-sent events (text/event-stream) as the WHATWG spec reads them: bytes may arrive split
// anywhere, lines end in LF, CRLF or CR, ':' lines are comments, several data lines make one
// multi-line payload, and an event is only complete at the blank line that ends it.

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

namespace kb::engine {

struct SseEvent {
    QByteArray event; // the "event:" field; empty means "message"
    QByteArray data;  // data lines joined with '\n'
    QByteArray id;
};

class SseDecoder {
public:
    // Takes the next bytes of the stream; returns the events they complete.
    QList<SseEvent> feed(QByteArrayView bytes);
    // The stream is over. Returns an error when it stopped in the middle of an event.
    QString finish();
    // Whether bytes of an unfinished event are buffered.
    bool hasPartialEvent() const;

private:
    void takeLine(QList<SseEvent>& out);

    QByteArray m_line;
    SseEvent m_current;
    bool m_hasData = false;
    bool m_hasFields = false;
    bool m_skipLf = false; // the last byte was CR: a following LF belongs to the same line end
};

} // namespace kb::engine
