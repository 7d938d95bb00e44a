/* xr c: only A receives from c.  B also receives from c: SPIN's default build
   (partial order reduction on) reports "xr assertion violated: access to chan c";
   a -DNOREDUCE build does not check channel assertions. */
chan c = [2] of { byte };
active proctype A() {
  xr c;
  c!1; c!2;
  c?_
}
active proctype B() {
  c?_
}
