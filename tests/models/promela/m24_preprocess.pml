#include "m24_inc.h"
#ifndef LIMIT
#define LIMIT 3
#endif
byte count;
#if NPROC > 1
active [NPROC] proctype Adder() {
#else
active proctype Adder() {
#endif
  do
  :: atomic { count < LIMIT -> INC(count,
                                    1) }
  :: count >= LIMIT -> break
  od;
  assert(count == LIMIT)
}
