init {
  run Q()
}
