/* a trace assertion (SPIN's event trace): every send on 'req' and 'fin' and every
   receive on 'rsp' must follow the trace's automaton; operations through a channel
   parameter, on a rendezvous channel, a receive into _ and a send inside d_step are
   all traced; the trace's loop has no end label, so when the system terminates pan
   reports an invalid end state ("event_trace not completed") */
mtype = { ask, grant, done };
chan req = [0] of { mtype, byte };
chan rsp = [1] of { mtype };
chan fin = [2] of { mtype, byte };
byte served;
proctype Client(chan out; byte id) {
  out!ask,id;
  rsp?grant;
  d_step { served++; fin!done,id }
}
active proctype Server() {
  byte who;
end:
  do
  :: req?ask,who -> rsp!grant
  :: fin?done,_
  od
}
init { run Client(req, 1); served == 1; run Client(req, 2) }
trace {
  do
  :: req!ask,_ -> rsp?grant -> fin!done,_
  od
}
