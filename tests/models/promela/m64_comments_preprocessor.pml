/* comments and preprocessor output as gcc -E gives them to SPIN: a comment that
   spans lines leaves its line breaks (which end statements), a comment inside a
   #define is a blank, a macro call spread over lines, # and ## in macros, #if with
   defined() and #elif */
#define STEP(v, by) v = v + \
                    by      /* the body goes on over two lines */
#define NAME(a, b) a##b
#define TEXT(s) #s
#if defined(BIG) && BIG > 2
#define LIMIT 9
#elif !defined(BIG)
#define LIMIT 3  // the default
#else
#define LIMIT 1
#endif
byte NAME(cou, nt);
active proctype P() {
  count = 1 /* this comment ends
  the statement */ STEP(count,
                        1)
  STEP(count, 1) // a line comment
  printf(TEXT(done %d\n), count);
  do
  :: count < LIMIT -> /* inside
  an option */ count++
  :: else -> break
  od;
  assert(count == LIMIT)
}
