chan q = [0] of { bool };
active proctype P() {
  q!timeout
}
active proctype Q() {
  q?1
}
