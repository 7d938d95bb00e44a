byte a[3];
byte i;
active proctype P() {
  do
  :: i < 4 -> a[i] = i; i++
  :: else -> break
  od
}
