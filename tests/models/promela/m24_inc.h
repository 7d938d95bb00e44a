#define NPROC 2
#define INC(v, d) v = v + (d)
