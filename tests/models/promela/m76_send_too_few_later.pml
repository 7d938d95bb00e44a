/* The short send blocks while the channel is full; it is an error once it can
   execute, after Q has taken a message. */
chan c = [1] of { byte, byte };
byte got;
active proctype P() {
  c!1,2;
  c!3
}
active proctype Q() {
  (len(c) == 1);
  c?got,_
}
