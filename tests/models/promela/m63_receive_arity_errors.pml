/* a receive with fewer arguments than fields takes the message and pan reports
   "missing pars in receive"; one with more reports "too many fields in recv" (here on
   a rendezvous channel, when the partner's send matches) */
chan data = [0] of { byte, bit };
chan ack = [1] of { byte, byte };
byte got;
active proctype Sender() {
  data!3,1;
  ack?got
}
active proctype Lossy() {
  data?_(_, _)
}
active proctype Acker() {
  ack!1,2
}
