typedef R { byte f };
R r;
active proctype P() {
  for (r.f : 1 .. 3) { skip }
}
