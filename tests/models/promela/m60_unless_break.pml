/* break and goto around unless: a break in the main part of an unless inside a loop,
   a whole do...od with an escape (spin.y's safe_break: a break in the escape of a
   do leaves the enclosing loop), an escape that is a break or starts with a goto */
byte a, b, c, d, y;
active proctype Main() {
  do
  :: { a++; a < 3 -> break } unless { y == 1 }
  :: y == 1 -> break
  od;
  do
  :: b < 3 -> b++
  :: else -> break
  od unless { y == 1 };
  assert(a <= 3 && b <= 3)
}
active proctype Escape() {
  do
  :: { c++; c < 4 } unless { y == 1 -> break }
  :: c > 2 -> break
  od;
  do
  :: { d < 3 -> d++ } unless { goto out }
  :: d >= 3 -> break
  od;
out:
  assert(c <= 4 && d <= 3)
}
active proctype Y() { y = 1 }
