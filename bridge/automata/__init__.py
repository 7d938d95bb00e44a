"""Büchi automata from Spot: ``ltl.py`` binds IR atoms to APs ``p0..pN`` and translates
the negated formula (a TGBA unless a BA is strictly smaller); ``buchi.py`` is a frozen
pure-Python view whose edge conditions are compiled from Spot's BDDs."""
