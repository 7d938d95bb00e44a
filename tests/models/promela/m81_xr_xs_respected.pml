/* xr/xs respected: each channel has one sender and one receiver. */
chan req = [1] of { byte };
chan ans = [1] of { byte };
byte v;
active proctype Client() {
  xs req; xr ans;
  req!1;
  ans?v;
  assert(v == 2)
}
active proctype Server() {
  byte m;
  xr req; xs ans;
  req?m;
  ans!m + 1
}
