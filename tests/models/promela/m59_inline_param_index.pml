/* an inline parameter used inside the index of a field of another parameter
   (q.slot[q.head]): the whole reference is the argument's, substituted textually */
typedef Queue { byte slot[3]; byte head; byte tail };
Queue a, b;
inline push(q, v) {
  q.slot[q.tail] = v;
  q.tail = (q.tail + 1) % 3
}
inline pop(q, out) {
  out = q.slot[q.head];
  q.head = (q.head + 1) % 3
}
active proctype P() {
  byte x;
  push(a, 4); push(a, 5); push(b, 6);
  pop(a, x); assert(x == 4);
  pop(b, x); assert(x == 6);
  pop(a, x); assert(x == 5 && a.head == 2 && b.head == 1)
}
