/* for loops whose body brace follows a newline or an explicit ";" (spin.y for_post) */
int s;
int a[3];
init {
  int i;
  for (i in a)
  {
    a[i] = i
  }
  for (i : 0 .. 2); { s = s + a[i] }
  for (i : 1 .. 2)
  {
    s = s + i
  }
  assert(s == 6)
}
