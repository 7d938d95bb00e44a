proctype P() { skip }
proctype P() { skip }
init { skip }
