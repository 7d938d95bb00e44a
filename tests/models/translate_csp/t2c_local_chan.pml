/* Clients send their own (process-local) reply channel to a server. */
mtype = { req, resp };
chan server = [2] of { mtype, chan, byte };

active proctype Server() {
  chan reply;
  byte x;
end:
  do
  :: server?req, reply, x -> reply!resp, x + 1
  od
}

proctype Client(byte n) {
  chan mine = [1] of { mtype, byte };
  byte got;
  server!req, mine, n;
  mine?resp, got;
  assert(got == n + 1)
}

init {
  atomic { run Client(1); run Client(2) }
}

ltl served { <> (Server:x == 2) }
