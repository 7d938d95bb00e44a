chan q = [0] of { byte };
active proctype Server() {
  byte v;
end_wait:
  do
  :: q?v -> v = 0
  od
}
active [2] proctype Client() {
  q!_pid
}
