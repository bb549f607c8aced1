#include "support/interrupt.h"

extern "C" {
volatile int32_t tsch_interrupt_pending = 0;
}
