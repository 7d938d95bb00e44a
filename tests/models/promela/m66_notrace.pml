/* a notrace assertion: the error is the whole sequence happening from the first
   traced operation on (a mismatch switches the notrace off for good) */
chan c = [2] of { byte };
active proctype A() { c!1; c!2 }
active proctype B() { c!3 }
active proctype R() { byte x; end: do :: c?x od }
notrace {
  c!1;
  c!3;
  c?1
}
