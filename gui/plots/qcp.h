#pragma once
// qcustomplot.h is written with Qt's lower-case keywords (signals, foreach), which this
// project switches off; they are mapped for the length of the include only.

#define signals Q_SIGNALS
#define slots Q_SLOTS
#define foreach(variable, container) for (variable : container)
#include <qcustomplot.h>
#undef foreach
#undef slots
#undef signals
