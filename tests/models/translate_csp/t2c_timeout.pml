/* A lossy sender; the receiver stops on timeout; a poller's else. */
chan data = [1] of { byte };
byte delivered, polled;

active proctype Sender() {
  byte n;
  do
  :: n < 3 ->
     if
     :: data!n
     :: skip
     fi;
     n++
  :: n == 3 -> break
  od
}

active proctype Receiver() {
  byte v;
  do
  :: data?v -> delivered++
  :: timeout -> break
  od;
end_r:
  assert(delivered <= 3)
}

active proctype Poller() {
  byte v;
  do
  :: polled < 2 ->
     if
     :: data?[v] -> data?v; delivered++
     :: else -> polled++
     fi
  :: polled == 2 -> break
  od
}

ltl ends { <> (Receiver@end_r) }
