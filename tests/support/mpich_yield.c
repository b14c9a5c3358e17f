// Debian's MPICH 4.0 (ch4:ucx) polls without ever yielding while it waits,
// and no setting of MPICH 4.0.x or UCX 1.13 changes that:
// MPIR_CVAR_POLLS_BEFORE_YIELD is read by ch3 only, ch4's progress throttle
// (MPIR_CVAR_CH4_PROGRESS_THROTTLE) came with MPICH 5.0, ch4's own yield
// (MPIDI_PROGRESS_YIELD) acts only under MPI_THREAD_MULTIPLE and calls
// MPL_sched_yield, empty unless MPICH was configured --enable-yield, and
// UCX's progress never yields. With more ranks than cores, the rank a
// message waits on may not get a core for a time slice: the all-reduce's
// every-dtype-and-op matrix at P = 5 on 2 cores ran 442 of its 1560 rows in
// 120 s. This shim, preloaded into MPICH's ranks by tests/mpich_test.sh
// only, wraps UCX's progress call, which ch4 makes at every poll, and gives
// the core away when a poll found nothing to do: the same matrix in 2.2 s.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

typedef unsigned (*progress_fn)(void*);

unsigned ucp_worker_progress(void* worker) {
  static progress_fn next = 0;
  if (!next) next = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
  const unsigned events = next(worker);
  if (events == 0) sched_yield();
  return events;
}
