/* A send with fewer values than the channel has fields: SPIN accepts the model and
   pan reports "too few parameters in send stmnt" when the send executes (here at
   depth 0). */
chan c = [2] of { byte, byte };
active proctype P() {
  c!1
}
