package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// stopSignals stop a long command (run, sweep, reproduce, merge) cleanly:
// Ctrl-C (SIGINT), a closed terminal or ssh session (SIGHUP), and SIGTERM,
// which Slurm's scancel and a Kubernetes preemption send. The command's
// staging folder is removed, and it exits with 128 + the signal's number,
// as a shell reports a process the signal killed.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// errSignal is the error of a command stopped by a signal.
type errSignal struct{ sig syscall.Signal }

func (e errSignal) Error() string {
	return fmt.Sprintf("stopped by %s before it finished; its output folder was left as it was", signalName(e.sig))
}

// exitStatus is the conventional status of a process stopped by the
// signal: 130 for SIGINT, 129 for SIGHUP, 143 for SIGTERM.
func (e errSignal) exitStatus() int { return 128 + int(e.sig) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// withSignals returns a context that the first of stopSignals cancels,
// with errSignal as its cause, and stop, which stops listening. After the
// first signal a second one has its default effect — the process ends at
// once, and a later command with the same --out removes what it left
// (outdir.Stage) — so that a user is never stuck waiting.
func withSignals() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			sig, _ := s.(syscall.Signal)
			cancel(errSignal{sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// stopped returns err, or errSignal when a signal cancelled ctx: the
// reason the command stopped, in place of the "context canceled" of
// whatever was cut short.
func stopped(ctx context.Context, err error) error {
	var es errSignal
	if err != nil && errors.As(context.Cause(ctx), &es) {
		return es
	}
	return err
}

// progressBar draws a bar of total steps on stderr when stderr is a
// terminal and quiet is off. It returns the step function (nil without a
// bar) and finish, which must be called before the command prints its
// summary: the bar's last redraw moves the cursor up over the lines after
// it, so a summary printed while the bar is live is erased (issue 24,
// item 12). finish may be called more than once.
func progressBar(ctx context.Context, stderr io.Writer, quiet bool, total int64, name decor.Decorator, after ...decor.Decorator) (step func(), finish func()) {
	f, ok := stderr.(*os.File)
	if !ok || quiet || !isTerminal(f) {
		return nil, func() {}
	}
	progress := mpb.NewWithContext(ctx, mpb.WithOutput(f), mpb.WithWidth(40))
	bar := progress.AddBar(total, mpb.PrependDecorators(name, decor.CountersNoUnit("%d/%d")), mpb.AppendDecorators(after...))
	finished := false
	return func() { bar.Increment() }, func() {
		if finished {
			return
		}
		finished = true
		if !bar.Completed() {
			bar.Abort(true)
		}
		progress.Wait()
	}
}
