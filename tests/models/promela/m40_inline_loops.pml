/* inlines whose bodies are loops with break (SPIN wraps an inline body in { }:
   the loop head is a state distinct from the block entry) */
mtype = { data0, data1, ok0, ok1 };
chan fwd = [1] of { mtype };
chan back = [1] of { mtype };
inline transmit(d, good, bad) {
  do
  :: back?good -> break
  :: back?bad
  :: timeout -> if :: fwd!d :: skip fi
  od
}
inline deliver(d, a, old, olda) {
  do
  :: fwd?d -> back!a; break
  :: fwd?old -> back!olda
  od
}
active proctype Tx() {
  do
  :: transmit(data0, ok0, ok1); transmit(data1, ok1, ok0)
  od
}
active proctype Rx() {
  do
  :: deliver(data0, ok0, data1, ok1); { deliver(data1, ok1, data0, ok0) }
  od
}
