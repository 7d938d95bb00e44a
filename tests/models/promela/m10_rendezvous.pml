mtype = { ping, pong };
chan c = [0] of { mtype };
chan d = [0] of { mtype, byte };
byte got;
active proctype Pinger() {
  byte n;
  do
  :: n < 3 -> c!ping; d?pong,got; n++
  :: n == 3 -> break
  od
}
active proctype Ponger() {
  byte k;
end:
  do
  :: c?ping -> k++; d!pong,k
  od
}
