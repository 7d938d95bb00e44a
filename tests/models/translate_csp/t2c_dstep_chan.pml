/* Channel operations inside d_step: a blocking one is SPIN's "block in d_step"
   error (here the buffer may be full when the d_step starts). */
chan q = [2] of { byte };
byte n;

active proctype Filler() {
  do
  :: n < 3 -> d_step { q!n; n++ }
  :: n == 3 -> break
  od
}

active proctype Drainer() {
  byte v;
end:
  do
  :: q?v
  od
}
