/* The start-up idiom: init spawns the processes in one atomic sequence and
   passes them rendezvous channels as parameters. */
chan ping = [0] of { byte };
chan pong = [0] of { byte };
byte rounds;

proctype Pinger(chan out, in) {
  byte v;
  do
  :: rounds < 3 -> out!rounds; in?v; assert(v == rounds); rounds++
  :: rounds == 3 -> break
  od
}

proctype Ponger(chan in, out) {
  byte v;
end:
  do
  :: in?v -> out!v
  od
}

init {
  atomic { run Pinger(ping, pong); run Ponger(ping, pong) }
}

ltl done { <> (rounds == 3) }
ltl bounded { [] (rounds <= 3) }
ltl never_two { [] (rounds != 2) }
