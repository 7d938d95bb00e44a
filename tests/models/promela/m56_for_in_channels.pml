/* for (i in a) over arrays of channels (global, local, uninitialised), and
   for (r in c) over the messages of a channel of records (SPIN rotates the buffer:
   each message is received into r and sent back) */
typedef Msg { byte id; bool ok };
chan g[3] = [1] of { byte };
chan q = [3] of { Msg };
byte sum;
active proctype P() {
  byte i;
  chan loc[2] = [1] of { byte };
  chan none[4];
  Msg m;
  for (i in g) { g[i]!i + 1 }
  for (i in g) { byte v; g[i]?v; sum = sum + v }
  assert(sum == 6);
  for (i in loc) { loc[i]!7 }
  assert(len(loc[0]) == 1 && len(loc[1]) == 1);
  for (i in none) { assert(none[i] == 0) }
  assert(i == 4);
  m.id = 1; q!m;
  m.id = 2; m.ok = true; q!m;
  sum = 0;
  for (m in q) { sum = sum * 10 + m.id }
  assert(sum == 12 && len(q) == 2);
  q?m;
  assert(m.id == 1 && !m.ok)
}
