proctype Q(byte a) { skip }
init {
  run Q(1, 2)
}
