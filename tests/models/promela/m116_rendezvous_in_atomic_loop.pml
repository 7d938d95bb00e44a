/* A rendezvous send inside an atomic sequence in a loop: the receiver takes control
   after each handshake (m98), and the sender, back at its atomic guard, may block
   there. pan stores 25 states; the differential count rule counted 27 before it keyed
   stored states without the exclusive slot (m115). */
chan link = [0] of { byte };
byte sent, got;
active proctype Sender() { do :: atomic { sent < 3 -> link!1; sent = sent + 1 } od }
active proctype Receiver() { do :: link?_ -> got = got + 1; got = got % 2 od }
