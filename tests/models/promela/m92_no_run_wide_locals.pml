/* No process is ever started at run time (no 'run'): the state vector never holds
   more instances than the initial state. Each instance keeps a wide local array, so
   the C engine's bound of 255 instances times the widest segment would pass its
   65,535-byte store limit; the initial instances alone are far below it. */
int shared;

active [2] proctype Worker() {
	int cells[120];
	byte i;
	do
	:: i < 4 -> cells[i * 30] = _pid + i; shared = shared + 1; i++
	:: i < 4 -> cells[i * 30 + 1] = 7; i++
	:: i == 4 -> break
	od;
	assert(cells[0] == _pid || cells[1] == 7);
	assert(shared <= 8)
}
