/* mtype lists as spin.y's nlst reads them: a trailing comma, names separated by
   blanks only, a doubled comma; mtype values count down from the last name */
mtype = {
  idle,
  busy,
  done,
};
mtype:colour = { red green, blue,, };
mtype s = idle;
mtype:colour k = green;
active proctype P() {
  assert(idle == 3 && busy == 2 && done == 1);
  assert(red == 3 && green == 2 && blue == 1);
  s = done;
  k = blue;
  assert(s != k || s == 1)
}
