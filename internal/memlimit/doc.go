// Package memlimit estimates, before anything is allocated, the memory a
// user's request would need, and refuses what exceeds a limit: no
// configuration, specification or HTTP request may make the process run
// out of memory.
package memlimit
