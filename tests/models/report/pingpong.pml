/* Report tests: a rendezvous (c) and a buffered channel (d) between two processes. */
mtype = { ping, pong };
chan c = [0] of { mtype };
chan d = [2] of { mtype, byte };
byte got;
active proctype Pinger() {
  byte n;
  do
  :: c!ping; d?pong,got; n = (n + 1) % 3
  od
}
active proctype Ponger() {
  byte k;
end:
  do
  :: c?ping -> k = (k + 1) % 3; d!pong,k
  od
}
ltl never_two { [] (got < 2) }
