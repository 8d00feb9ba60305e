// Package fanout runs a step's independent tasks in an errgroup.Group,
// the one way the engine and its exploration fan out.
package fanout

import "golang.org/x/sync/errgroup"

// Run runs tasks in g and waits for them. A single task runs on this
// goroutine, a goroutine start saved; g still cancels its context when it
// is done.
func Run(g *errgroup.Group, tasks []func() error) error {
	if len(tasks) != 1 {
		for _, t := range tasks {
			g.Go(t)
		}
		return g.Wait()
	}
	err := tasks[0]()
	if werr := g.Wait(); err == nil {
		err = werr
	}
	return err
}
