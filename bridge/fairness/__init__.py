"""LTL model checking under fairness (paper 000 sections 2-4; 001 section 3; 002 section 4).

Entry point: ``bridge.fairness.check.check_ltl(system, prop, LtlOptions(...)) -> Verdict``.

Modules, in pipeline order: ``packed.py`` (system states packed into bytes),
``product.py`` (the lean on-the-fly product of a ``StateSpace`` with the Büchi automaton
of the negated formula: no edge lists kept, edges recomputed), ``conditions.py`` (one
``prune`` per fairness notion, and what each notion asks of an early report),
``onthefly.py`` (the emptiness check: partial SCCs merged as back edges are found, a
fair accepting part reported at once), ``components.py`` (000 Fig. 5 on a complete
component), ``scc.py`` (iterative Tarjan, for Fig. 5's re-decomposition),
``emptiness.py`` (the search's entry points and fair lassos), ``check.py`` (options,
verdicts, traces), ``never.py`` (Promela never claims).

Semantics decisions (also for the README):

* State/event LTL, PAT's convention: on a step ``s --e--> s'`` the automaton reads the
  state atoms of ``s'`` and the event atoms of ``e``; the run begins with the pseudo-step
  ``init`` into the initial state. State atoms thus see ``s0, s1, ...`` exactly as a SPIN
  never claim does. An event atom matches a step's event name exactly.
* Finite runs stutter at their last state (deadlock or termination) on an idle step with
  no event, no action and no process. A state without steps enables nothing, so the
  stutter loop is fair under every notion (Spin issue 38: ``pan -a -f`` misses this);
  only an unconditional ``f(e)`` annotation rejects it, since it demands ``e`` forever.
* Actions: ``Step.action`` (CSP#: the event name; Promela: a statement of an instance).
  Tau steps (``Step.tau``) count as engaged: they are never required (PAT). Processes:
  ``Step.processes``. Strong global fairness is over steps ``(s, step, s')``.
* A fair accepting cycle is reported as soon as the explored part of a component
  contains one (``onthefly.py``: the per-notion early conditions and their soundness);
  otherwise each complete component is judged as below, so no verdict depends on it.
* Weak, process-weak, strong-global and unconditional/weak annotations are
  all-or-nothing prunes (a failing SCC has no fair subgraph); strong local, process-strong
  and ``sf``/``sl`` prune states and re-decompose (Fig. 5's recursion, as a worklist).
* An accepting SCC meets every acceptance set of the generalized Büchi automaton; fairness
  is only examined on accepting SCCs.
* A fair lasso's loop covers an accepting edge of every set and an engagement of
  everything the notion requires of the states it visits (grown from a small accepting
  loop; for strong global fairness, every step of every state visited).
"""
